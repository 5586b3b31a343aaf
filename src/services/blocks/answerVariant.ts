// The options that make two answers for the same block differ, declared once. From
// this one table come: a request's variant read from its flags, the key of what is
// built and cached (the cache, shared builds), the key of what is sent (ETags, the
// channels of block streams), the canonical URL a warm answer is kept under, and the
// answer's JSON as sent. A new option is a field of AnswerVariant: the compiler then
// demands its entry here, and everything above follows from it.
import type { BlockAnswer, BlockQuery } from './blockAnswer';
import type { BlockId } from '../shared/at/blockIds';
import { answerBytes, withFinalizedTag } from './blockAnswer';
import { withEvmAddresses } from './evmFormat';

/** Everything that changes a block answer's bytes: what is built, and how it is sent. */
export interface AnswerVariant extends BlockQuery {
  /** false: the `finalized` field is left out. */
  finalizedKey: boolean;
  /** Accounts in revive calls' events as EVM addresses. */
  useEvmFormat: boolean;
}

interface FlagOption {
  kind: 'flag';
  /** Its value when the request does not say. */
  default: boolean;
  /** It changes what is built and cached, not only how it is sent. */
  built: boolean;
}

interface ParaIdOption {
  kind: 'paraId';
}

/** In the order of the route's parameters: the canonical URL and the keys list them so. */
const OPTIONS: { [K in keyof Required<AnswerVariant>]: AnswerVariant[K] extends boolean ? FlagOption : ParaIdOption } = {
  eventDocs: { kind: 'flag', default: false, built: true },
  extrinsicDocs: { kind: 'flag', default: false, built: true },
  noFees: { kind: 'flag', default: false, built: true },
  finalizedKey: { kind: 'flag', default: true, built: false },
  decodedXcmMsgs: { kind: 'flag', default: false, built: true },
  // It filters the XCM messages after the build, and only when they are asked for; 0 filters nothing.
  paraId: { kind: 'paraId' },
  useEvmFormat: { kind: 'flag', default: false, built: false },
};

type OptionName = keyof typeof OPTIONS;
const NAMES = Object.keys(OPTIONS) as OptionName[];
const FLAGS = NAMES.filter((name): name is Exclude<OptionName, 'paraId'> => OPTIONS[name].kind === 'flag');
const BUILT = FLAGS.filter((name) => (OPTIONS[name] as FlagOption).built);

/** The names of the options: the query parameters a block answer's variant is read from. */
export const VARIANT_OPTIONS: readonly string[] = NAMES;

/** The variant a request's flags (and paraId) ask for; what they do not say is the default. */
export function variantOf(flags: Partial<Record<string, boolean>>, paraId?: number): AnswerVariant {
  const variant = { paraId } as AnswerVariant;
  for (const name of FLAGS) variant[name] = flags[name] ?? (OPTIONS[name] as FlagOption).default;
  return variant;
}

/** The options that change what is built, as a short key (cache keys, shared builds). */
export function builtKey(query: BlockQuery): string {
  let key = '';
  for (const name of BUILT) key += Number(query[name as keyof BlockQuery] === true);
  return key;
}

/** paraId as it matters: only with decodedXcmMsgs, and 0 the same as none. */
const paraIdOf = (variant: BlockQuery): number => (variant.decodedXcmMsgs ? (variant.paraId ?? 0) : 0);

/** Every option, as a short key: equal keys, equal bytes (ETags, block streams' channels). */
export function variantKey(variant: AnswerVariant): string {
  let key = '';
  for (const name of NAMES) key += name === 'paraId' ? `-${paraIdOf(variant)}-` : Number(variant[name] === true);
  return key;
}

/**
 * The one spelling of a block answer's URL: the height in decimal or the hash in lower
 * case, then only the options that differ from their default, in the table's order,
 * spelled `name=value` with the alias resolved. Every spelling sidecar's parsing accepts
 * (`0005`, `5.0`, `0b101`, `noFee=TRUE`, `noFees=false`, ...) answers the same bytes as
 * this one, and this is the only one kept as a warm answer: one entry per block and options.
 */
export function canonicalBlockPath(mount: string, id: BlockId, variant: AnswerVariant): string {
  const set: string[] = [];
  for (const name of NAMES) {
    if (name === 'paraId') {
      if (paraIdOf(variant)) set.push(`paraId=${paraIdOf(variant)}`);
    } else if (variant[name] !== (OPTIONS[name] as FlagOption).default) set.push(`${name}=${variant[name]}`);
  }
  const path = `${mount}/blocks/${id.kind === 'number' ? id.number : id.hash}`;
  return set.length === 0 ? path : `${path}?${set.join('&')}`;
}

/** The answer's JSON as this variant sends it (the built answer serves every way of sending it). */
export function sentJson(answer: Pick<BlockAnswer, 'json' | 'finalized' | 'xcm'>, variant: Pick<AnswerVariant, 'finalizedKey' | 'useEvmFormat'>): string {
  const json = withFinalizedTag(answer, variant.finalizedKey);
  return variant.useEvmFormat ? withEvmAddresses(json) : json;
}

/** The same as UTF-8 bytes (without a copy of the whole JSON where no address changes). */
export function sentBytes(answer: Pick<BlockAnswer, 'json' | 'finalized' | 'xcm'>, variant: Pick<AnswerVariant, 'finalizedKey' | 'useEvmFormat'>): Buffer {
  return variant.useEvmFormat ? Buffer.from(sentJson(answer, variant)) : answerBytes(answer, variant.finalizedKey);
}

/** One extrinsic's JSON (cut from its block's answer) as this variant sends it. */
export function sentExtrinsic(json: string, variant: Pick<AnswerVariant, 'useEvmFormat'>): string {
  return variant.useEvmFormat ? withEvmAddresses(json) : json;
}
