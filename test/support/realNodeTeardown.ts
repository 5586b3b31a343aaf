// The real-node project's global teardown: the node the suites shared (realNodeSetup.ts) stops.
export default async function stopSharedRealNode(): Promise<void> {
  await globalThis.fastcarSharedRealNode?.close();
  globalThis.fastcarSharedRealNode = undefined;
}
