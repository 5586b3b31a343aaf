/** The JSON values answers are made of (undefined fields are left out when serialized). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue | undefined };
