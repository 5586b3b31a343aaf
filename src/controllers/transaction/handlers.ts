// HTTP for `/transaction`: each route reads its parameters, asks the services, and returns one answer value.
import { badRequest } from '../../errors';
import type { FamilyHandlers } from '../../http/routes';
import type { ChainServices } from '../../services/chain';
import { replyAt } from '../answers';
import { metadataFormOf, metadataVersionOf } from '../metadataParams';
import { isUInt, parseAt } from '../params';
import type { AtBlock } from '../../services/shared/at/blockAt';
import { txHexOf } from '../../services/transaction/submittedTx';
import { metadataBlobBodyOf } from './metadataBlobBody';
import { TRANSACTION_FAMILY, type TransactionRouteName } from './routes';

/** A dry run's body: the call, its sender, where (`at`, a string or ignored, as sidecar reads it) and the XCM version asked. */
function dryRunBodyOf(body: unknown): { tx: `0x${string}`; sender: string; at: AtBlock; xcmVersion?: number } {
  const tx = txHexOf(body);
  const fields = body as Record<string, unknown>;
  const sender = fields.senderAddress;
  if (sender === undefined || sender === null || sender === '') throw badRequest('Missing field `senderAddress` on request body.');
  if (typeof sender !== 'string') throw badRequest('The field `senderAddress` must be an address (SS58 or 0x hex).');
  // Sidecar asks about the finalized head for an `at` that is empty or not a string.
  const at = typeof fields.at === 'string' && fields.at !== '' ? parseAt(fields.at) : 'finalized';
  const raw = fields.xcmVersion;
  const xcmVersion = typeof raw === 'string' && /^[0-9]{1,9}$/.test(raw) ? Number(raw) : raw;
  if (xcmVersion !== undefined && xcmVersion !== null && (typeof xcmVersion !== 'number' || !isUInt(xcmVersion) || xcmVersion > 0xffff_ffff)) {
    throw badRequest('The field `xcmVersion` must be a whole number (an XCM version, such as 4 or 5).');
  }
  // 0, as sidecar reads it, names no version: the chain's own is used.
  return { tx, sender, at, xcmVersion: typeof xcmVersion === 'number' && xcmVersion > 0 ? xcmVersion : undefined };
}

export function transactionHandlers(chain: ChainServices): FamilyHandlers<TransactionRouteName> {
  return {
    async material(req) {
      const at = parseAt(req.query.at);
      const form = metadataFormOf(req.query.metadata);
      const answer = await chain.forRequest(req.stats).material.material(at, form);
      return replyAt(answer, `material-${form ?? 'none'}-${TRANSACTION_FAMILY.formatVersion}`);
    },
    async materialAtVersion(req) {
      const at = parseAt(req.query.at);
      const version = metadataVersionOf(req.params.metadataVersion);
      const form = metadataFormOf(req.query.metadata);
      const answer = await chain.forRequest(req.stats).material.materialAtVersion(at, version, form);
      return replyAt(answer, `material-v${version}-${form ?? 'json'}-${TRANSACTION_FAMILY.formatVersion}`);
    },
    async feeEstimate(req) {
      const tx = txHexOf(req.body);
      const json = await chain.forRequest(req.stats).feeEstimates.estimate(tx, tx);
      return { body: json };
    },
    async dryRun(req) {
      const { tx, sender, at, xcmVersion } = dryRunBodyOf(req.body);
      const json = await chain.forRequest(req.stats).dryRuns.dryRun({ call: tx, sender, at, xcmVersion, sent: tx });
      return { body: json };
    },
    async metadataBlob(req) {
      const { at, subject } = metadataBlobBodyOf(req.body);
      const json = await chain.forRequest(req.stats).metadataBlobs.blob(at, subject);
      return { body: json };
    },
    async submit(req) {
      const tx = txHexOf(req.body);
      const hash = await chain.forRequest(req.stats).submitter.submit(tx, tx);
      return { body: JSON.stringify({ hash }) };
    },
  };
}
