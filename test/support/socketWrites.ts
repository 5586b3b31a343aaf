// Counts the writes a process hands to the kernel (one write or writev each) on
// its TCP sockets of one port: what "one write per turn" is measured by.
import { Socket } from 'node:net';

export interface WriteCounter {
  count: number;
  restore(): void;
}

/** Counts writes of sockets whose local or remote port is `port` (`side` says which) until restore(). */
export function countSocketWrites(port: number, side: 'local' | 'remote'): WriteCounter {
  const proto = Socket.prototype as unknown as { _writeGeneric: (this: Socket, ...args: unknown[]) => unknown };
  const original = proto._writeGeneric;
  const counter: WriteCounter = {
    count: 0,
    restore: () => {
      proto._writeGeneric = original;
    },
  };
  proto._writeGeneric = function (this: Socket, ...args: unknown[]) {
    if ((side === 'local' ? this.localPort : this.remotePort) === port) counter.count += 1;
    return original.apply(this, args);
  };
  return counter;
}
