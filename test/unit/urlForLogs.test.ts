// Node URLs in logs and start-up lines: a hosted provider's API key (in the path, the
// query or the credentials) never printed.
import { urlForLogs } from '../../src/logger';

it.each([
  ['ws://127.0.0.1:9944', 'ws://127.0.0.1:9944'],
  ['https://rpc.provider.example/v2/SECRETKEY', 'https://rpc.provider.example/…'],
  ['https://rpc.provider.example/?apikey=SECRETKEY', 'https://rpc.provider.example/…'],
  ['https://user:SECRETKEY@rpc.provider.example:8443', 'https://rpc.provider.example:8443/…'],
  ['not a url', '(unreadable URL)'],
])('%s -> %s', (url, shown) => {
  expect(urlForLogs(url)).toBe(shown);
  expect(urlForLogs(url)).not.toContain('SECRETKEY');
});
