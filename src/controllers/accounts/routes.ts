// The `/accounts` routes as data (see docs/adding-routes.md).
import type { QueryParameter, RouteFamily, RouteSpec } from '../../http/routes';
import { closed, decimal, hash, hex, perRelayBlock, ref } from '../../http/schemas';
import { AT_PARAMETER, AT_SCHEMA } from '../params';
import { ASSETS_PARAMETERS, ASSETS_ROUTES, ASSETS_SCHEMAS, type AssetsQueryName } from './assetRoutes';

export type AccountsQueryName = 'at' | 'token' | 'denominated' | 'useRcBlock' | 'useRcBlockFormat' | 'includeClaimable' | AddressQueryName | AssetsQueryName;

/** The parameters of the routes that only compute with addresses (convert, compare). */
type AddressQueryName = 'scheme' | 'prefix' | 'publicKey' | 'addresses';

/** Sidecar's bound on the addresses one comparison takes. */
export const MAX_COMPARED_ADDRESSES = 30;

export const ACCOUNTS_PARAMETERS: Record<AccountsQueryName, QueryParameter> = {
  at: AT_PARAMETER,
  token: {
    type: 'string',
    description:
      "The token symbol the answer names (`tokenSymbol`, uppercased) and whose decimals `denominated` uses; the chain's first token when absent. " +
      'The amounts are always the native balance, as sidecar 20 answers them.',
  },
  denominated: { type: 'boolean', default: false, description: 'Amounts in whole tokens (`994975.008363754533`) rather than in the smallest unit' },
  useRcBlock: {
    type: 'boolean',
    default: false,
    description:
      'On balance-info, vesting-info, proxy-info and the asset routes: `at` is a relay chain block, and the answer lists the answer at each block of this chain it included, ' +
      'each with `rcBlockHash`, `rcBlockNumber`, `ahTimestamp` (needs FASTCAR_RELAY_URL). On validate: accepted, without effect.',
  },
  useRcBlockFormat: {
    type: 'string',
    pattern: '^(array|object)$',
    description: 'With useRcBlock: `object` wraps the list with the relay block (`rcBlock`, `parachainDataPerBlock`).',
  },
  scheme: {
    type: 'string',
    pattern: '^(ed25519|sr25519|ecdsa)$',
    description: 'The key scheme of the hex (`sr25519` when absent): with `publicKey=true`, an `ecdsa` key longer than 32 bytes is hashed (blake2-256) first',
  },
  prefix: { type: 'integer', description: "The ss58 prefix of the network the address is written for (42, substrate's, when absent): one the registry lists" },
  publicKey: { type: 'boolean', default: false, description: 'The hex is a public key: the account is derived from it as `scheme` derives it' },
  addresses: {
    type: 'string',
    description:
      `The addresses compared, 2 to ${MAX_COMPARED_ADDRESSES}: comma-separated (\`addresses=a,b\`), or the parameter repeated ` +
      '(`addresses=a&addresses=b`, `addresses[]=a&addresses[]=b`). The only parameter the route takes.',
  },
  ...ASSETS_PARAMETERS,
  includeClaimable: {
    type: 'boolean',
    default: false,
    description:
      'On vesting-info: what each schedule has released (`vested`), their totals and what can be claimed now, by the block number the schedules ' +
      "run on (this chain's own; on an Asset Hub after the 2025 migration the relay chain block that included the block, which needs FASTCAR_RELAY_URL " +
      'unless useRcBlock names it). Not worked out on an Asset Hub before the migration: the schedules are answered as they are.',
  },
};

export const ACCOUNTS_ROUTES = {
  balanceInfo: {
    path: '/accounts/:accountId/balance-info',
    ownChecksFirst: true,
    summary: "An account's nonce, free, reserved and frozen balance, what it can transfer, and its locks, at a block",
    query: ['at', 'token', 'denominated', 'useRcBlock', 'useRcBlockFormat'],
    response: 'AccountBalanceInfo',
    cacheable: true,
    errors: {
      400:
        'A malformed address (checksum, base58, format), an address that is no account of this chain (an Ethereum one on a 32-byte chain), ' +
        'a malformed `at` or `denominated`, a height beyond the head',
      404: 'No block with that hash',
    },
  },
  validate: {
    path: '/accounts/:accountId/validate',
    summary: 'Whether a text is an ss58 address (or its hex), of which network, naming which account; computed without the node',
    query: ['useRcBlock'],
    response: 'AccountValidation',
    errors: { 400: 'A malformed parameter (with FASTCAR_STRICT_PARAMS, one this route does not take)' },
  },
  convert: {
    path: '/accounts/:accountId/convert',
    summary: 'A public key or account id (hex) as the ss58 address of a network; computed without the node, served on every chain',
    description:
      '`accountId` here is hex of 1, 2, 4, 8, 32 or 33 bytes, echoed as written. Sidecar serves this route on relay chains only; ' +
      'fastcar on every chain, as polkadot-rest-api does.',
    query: ['scheme', 'prefix', 'publicKey'],
    response: 'AccountConversion',
    errors: {
      400:
        "A `scheme` other than ed25519, sr25519 and ecdsa; a `prefix` that is no unsigned integer or no network's (46 and 47 are reserved); " +
        'a malformed `publicKey`; an `accountId` that is not hex, or of another length',
    },
  },
  compare: {
    path: '/accounts/compare',
    ownChecksFirst: true,
    summary: 'Whether addresses (ss58 of any network, their hex, Ethereum addresses) name the same account; computed without the node',
    query: ['addresses'],
    required: ['addresses'],
    response: 'AccountComparison',
    errors: {
      400: `Any parameter but \`addresses\`, fewer than two or more than ${MAX_COMPARED_ADDRESSES} addresses, a malformed address (named)`,
    },
  },
  ...ASSETS_ROUTES,
  vestingInfo: {
    path: '/accounts/:accountId/vesting-info',
    ownChecksFirst: true,
    summary: "An account's vesting schedules at a block, and with includeClaimable what they have released and what can be claimed",
    query: ['at', 'includeClaimable', 'useRcBlock', 'useRcBlockFormat'],
    response: 'AccountVestingInfo',
    cacheable: true,
    errors: {
      400:
        'A malformed address or one that is no account of this chain, a malformed `at` or flag, a height beyond the head, a runtime without ' +
        'the Vesting pallet, includeClaimable on an Asset Hub after the migration without a relay chain node',
      404: 'No block with that hash',
    },
  },
  proxyInfo: {
    path: '/accounts/:accountId/proxy-info',
    ownChecksFirst: true,
    summary: 'The proxies an account has named (delegate, proxy type, delay) and the deposit they hold, at a block',
    query: ['at', 'useRcBlock', 'useRcBlockFormat'],
    response: 'AccountProxyInfo',
    cacheable: true,
    errors: {
      400: 'A malformed address or one that is no account of this chain, a malformed `at`, a height beyond the head, a runtime without the Proxy pallet',
      404: 'No block with that hash',
    },
  },
} as const satisfies Record<string, RouteSpec<AccountsQueryName>>;

export type AccountsRouteName = keyof typeof ACCOUNTS_ROUTES;

/** An amount in the smallest unit, or in whole tokens with `denominated` (`.140163000000` below one token). */
const amount = { type: 'string', pattern: '^([0-9]+|[0-9]*\\.[0-9]+)$' };
/** An amount, or on runtimes without the field, the sentence saying so. */
const amountOrAbsent = {
  type: 'string',
  description: 'An amount, or on runtimes without this field a sentence saying so (`... does not exist for this runtime`)',
};
const orNull = (type: string) => ({ type: [type, 'null'] });

/** An account's balance at a block, in sidecar's order. */
const BALANCE_FIELDS = {
  at: ref('At'),
  nonce: decimal,
  tokenSymbol: { type: 'string' },
  free: amount,
  reserved: amount,
  miscFrozen: amountOrAbsent,
  feeFrozen: amountOrAbsent,
  frozen: amountOrAbsent,
  transferable: {
    ...amountOrAbsent,
    description:
      'free less what must stay: the frozen part beyond the reserved, or the existential deposit once anything is frozen or reserved; ' +
      '0 under a lock of every unit',
  },
  locks: { type: 'array', items: ref('BalanceLock') },
};

/** An account's vesting at a block, in sidecar's order; the totals only with includeClaimable (and where they are worked out). */
const VESTING_FIELDS = {
  at: ref('At'),
  vesting: { type: 'array', items: ref('VestingSchedule') },
  vestedBalance: { ...decimal, description: 'What the schedules have released in all' },
  vestingTotal: { ...decimal, description: 'What the schedules locked in all' },
  vestedClaimable: { ...decimal, description: 'What can be unlocked now: the vesting lock less what the schedules still keep' },
  blockNumberForCalculation: { ...decimal, description: 'The block number the schedules were read at' },
  blockNumberSource: { type: 'string', enum: ['self', 'relay'], description: "`self`: this chain's own; `relay`: the relay chain block that included it" },
};

/** The proxies an account has named, in sidecar's order. */
const PROXY_FIELDS = {
  at: ref('At'),
  delegatedAccounts: { type: 'array', items: ref('ProxyDefinition') },
  depositHeld: { ...decimal, description: 'What the proxies hold reserved' },
};

export const ACCOUNTS_FAMILY: RouteFamily<AccountsRouteName, AccountsQueryName> = {
  tag: 'accounts',
  formatVersion: 1,
  routes: ACCOUNTS_ROUTES,
  parameters: ACCOUNTS_PARAMETERS,
  pathParameters: {
    accountId: {
      description: 'An ss58 address of any network, the hex of an ss58 address (prefix, account, checksum), or a 20-byte Ethereum address',
      schema: { type: 'string' },
    },
  },
  schemas: {
    At: AT_SCHEMA,
    AccountBalanceInfo: { oneOf: [ref('AccountBalanceAt'), ref('AccountBalancesByRelayBlock'), ref('AccountBalancesInRelayBlock')] },
    AccountBalancesByRelayBlock: {
      type: 'array',
      items: ref('AccountBalanceAtRelayBlock'),
      description: 'With useRcBlock: one answer per block the relay block included',
    },
    AccountBalancesInRelayBlock: closed({
      rcBlock: closed({ hash, parentHash: hash, number: decimal }),
      parachainDataPerBlock: { type: 'array', items: ref('AccountBalanceAtRelayBlock') },
    }),
    AccountBalanceAtRelayBlock: closed({ ...BALANCE_FIELDS, rcBlockHash: hash, rcBlockNumber: decimal, ahTimestamp: { type: 'string', pattern: '^[0-9]*$' } }, [
      ...Object.keys(BALANCE_FIELDS),
      'rcBlockHash',
      'rcBlockNumber',
    ]),
    AccountBalanceAt: closed(BALANCE_FIELDS),
    BalanceLock: closed({ id: hex, amount, reasons: { type: 'string', description: '`All`, `Fee` or `Misc`' } }),
    ...perRelayBlock('AccountVestingInfo', VESTING_FIELDS, ['at', 'vesting']),
    VestingSchedule: closed(
      {
        locked: decimal,
        perBlock: decimal,
        startingBlock: decimal,
        vested: { ...decimal, description: 'With includeClaimable: what this schedule has released' },
      },
      ['locked', 'perBlock', 'startingBlock'],
    ),
    ...perRelayBlock('AccountProxyInfo', PROXY_FIELDS, ['at', 'delegatedAccounts', 'depositHeld']),
    ProxyDefinition: closed({
      delegate: { type: 'string', description: "The proxy, as an ss58 address in the chain's format" },
      proxyType: { type: 'string', description: 'What the proxy may do, as the runtime names it (`Any`, `NonTransfer`, ...)' },
      delay: decimal,
    }),
    AccountValidation: closed({
      isValid: { type: 'boolean' },
      ss58Prefix: { ...orNull('string'), pattern: '^[0-9]+$' },
      network: {
        ...orNull('string'),
        description: 'The first network registered with that prefix (`polkadot`, `kusama`, `substrate`, ...), null for an unregistered prefix',
      },
      accountId: { ...orNull('string'), description: 'The bytes the address encodes (between its prefix and its checksum), as hex' },
    }),
    AccountConversion: closed({
      ss58Prefix: decimal,
      network: { type: 'string', description: 'The first network registered with that prefix' },
      address: { type: 'string', description: 'The ss58 address' },
      accountId: { ...hex, description: 'The hex as asked' },
      scheme: { type: 'string', enum: ['ed25519', 'sr25519', 'ecdsa'] },
      publicKey: { type: 'boolean' },
    }),
    AccountComparison: closed({
      areEqual: { type: 'boolean', description: 'Every address encodes the same bytes' },
      addresses: { type: 'array', items: ref('ComparedAddress') },
    }),
    ComparedAddress: closed({
      ss58Format: { type: 'string', description: 'The address as asked' },
      ss58Prefix: { ...orNull('string'), pattern: '^[0-9]+$', description: 'Null for an Ethereum address (no ss58 address)' },
      network: orNull('string'),
      publicKey: { ...orNull('string'), description: 'The bytes the address encodes, as hex (null for an Ethereum address)' },
    }),
    ...ASSETS_SCHEMAS,
  },
};
