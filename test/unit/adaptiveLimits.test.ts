// The limits the HTTP transport keeps to (src/rpc/adaptiveLimits.ts): configured ones,
// lowered once per burst of throttled answers, a pause for the Retry-After, and growth
// back with ordinary answers.
import { AdaptiveLimits } from '../../src/rpc/adaptiveLimits';

it('lets requests go up to the configured rate, in bursts of a tenth of a second', () => {
  const limits = new AdaptiveLimits(20, 100);
  const t = 1_000_000;
  const sent = Array.from({ length: 15 }, () => limits.take(t)).filter((wait) => wait === 0).length;
  expect(sent).toBe(10);
  expect(limits.take(t)).toBe(10); // one more token in 10 ms
  expect(limits.take(t + 10)).toBe(0);
});

it('pauses for the Retry-After and lowers both limits below what the server took, once per burst', () => {
  const limits = new AdaptiveLimits(20, 0);
  const t = 1_000_000;
  for (let i = 0; i < 50; i++) expect(limits.take(t + i)).toBe(0);
  const until = limits.throttled(t + 100, t + 50, 16, 1000);
  expect(until).toBe(t + 1100);
  expect(limits.take(t + 200)).toBe(900);
  expect(limits.inFlightLimit).toBe(12);
  expect(limits.ratePerSecond).toBe(40);
  // A second answer of the same burst (sent before the lesson) teaches nothing more.
  limits.throttled(t + 120, t + 60, 15, 1000);
  expect(limits.inFlightLimit).toBe(12);
  expect(limits.ratePerSecond).toBe(40);
  // One sent after it does.
  limits.throttled(t + 300, t + 200, 12, 1000);
  expect(limits.inFlightLimit).toBe(9);
});

it('grows back to the configured limits with ordinary answers', () => {
  const limits = new AdaptiveLimits(20, 300);
  const t = 1_000_000;
  for (let i = 0; i < 100; i++) limits.take(t + i * 5);
  limits.throttled(t + 500, t + 490, 10, 0);
  expect(limits.inFlightLimit).toBe(7);
  expect(limits.ratePerSecond).toBeLessThan(300);
  for (let i = 0; i < 5000; i++) limits.answered();
  expect(limits.inFlightLimit).toBe(20);
  expect(limits.ratePerSecond).toBe(300);
});

it('after learning a low rate, grows back to the configured one within seconds of answers, not minutes', () => {
  const limits = new AdaptiveLimits(20, 300);
  const t = 1_000_000;
  for (let i = 0; i < 5; i++) limits.take(t + i * 100);
  limits.throttled(t + 600, t + 500, 2, 0);
  expect(limits.ratePerSecond).toBe(4);
  // Answers come at the rate allowed: count how many seconds of them it takes to reach 30 a second.
  let seconds = 0;
  while (limits.ratePerSecond < 30 && seconds < 60) {
    const answers = Math.max(1, Math.floor(limits.ratePerSecond));
    for (let i = 0; i < answers; i++) limits.answered();
    seconds++;
  }
  expect(seconds).toBeLessThanOrEqual(8);
});
