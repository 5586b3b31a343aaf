// A jest reporter: after a run, the ten test files that took longest, so CI's log shows
// where the suite's time goes without a profiler.
const SHOWN = 10;

class SlowestFiles {
  onRunComplete(_contexts, results) {
    const files = results.testResults
      .map((file) => ({ path: file.testFilePath, project: file.displayName?.name, seconds: (file.perfStats.end - file.perfStats.start) / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SHOWN);
    if (files.length < 2) return;
    const root = process.cwd();
    // The project's name too: the same file runs on the devnet and beside the real node.
    const lines = files.map(
      ({ path, project, seconds }) => `  ${seconds.toFixed(1).padStart(7)} s  ${path.startsWith(root) ? path.slice(root.length + 1) : path}${project ? ` (${project})` : ''}`,
    );
    process.stderr.write(`\nThe ${files.length} slowest test files:\n${lines.join('\n')}\n`);
  }
}

module.exports = SlowestFiles;
