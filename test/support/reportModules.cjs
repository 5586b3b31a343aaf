// Preloaded (node --require) into a process under test: on SIGUSR2 it prints the files the
// process has loaded, one JSON line, so a test can see what a mode of main.ts pulls in.
process.on('SIGUSR2', () => {
  process.stdout.write(`${JSON.stringify({ modules: Object.keys(require.cache) })}\n`);
});
