// Every route of the family answers 501 with the reason its table gives.
import { ApiError } from '../../errors';
import type { FamilyHandlers } from '../../http/routes';
import { UNSERVED_ROUTES, type UnservedRouteName } from './routes';

export function unservedHandlers(): FamilyHandlers<UnservedRouteName> {
  const refuse = (name: UnservedRouteName) => async () => {
    throw new ApiError(501, UNSERVED_ROUTES[name].unserved);
  };
  return { blockTraces: refuse('blockTraces'), blockTraceOperations: refuse('blockTraceOperations'), inkQuery: refuse('inkQuery') };
}
