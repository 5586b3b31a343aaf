// archive_v1_finalizedHeight behind a balancer. The spec asks that it never go
// down and that every archive call at or below it give one answer whichever
// node serves it: so it is the lowest finalized height among the nodes taking
// calls (as their probes last told), held at the highest answered so far.
import { NoUpstreamError, type UpstreamPool } from './upstreamPool';

export class ArchiveHeight {
  private answered = -1;

  constructor(private readonly pool: Pick<UpstreamPool, 'upstreams'>) {}

  answer(): number {
    const heights = this.pool.upstreams.filter((u) => u.available && u.finalizedNumber >= 0).map((u) => u.finalizedNumber);
    if (heights.length === 0 && this.answered < 0) throw new NoUpstreamError('no node has told its finalized height yet');
    if (heights.length > 0) this.answered = Math.max(this.answered, Math.min(...heights));
    return this.answered;
  }
}
