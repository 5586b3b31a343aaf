/** The JSON values answers are made of (undefined fields are left out when serialized). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue | undefined };

/** A map's key as a JSON object key, as polkadot.js prints maps: plain values as text, others as their JSON. */
export function mapKeyOf(key: JsonValue): string {
  return typeof key === 'object' ? JSON.stringify(key) : String(key);
}

/** Metadata docs (one entry a line) as sidecar prints them. */
export function docsText(lines: readonly { toString(): string }[]): string {
  return lines.map((line) => line.toString()).join('\n');
}
