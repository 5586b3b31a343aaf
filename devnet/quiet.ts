// Imported first by scripts that load chopsticks: its logger reads LOG_LEVEL once, on load.
process.env.LOG_LEVEL ??= 'error';
