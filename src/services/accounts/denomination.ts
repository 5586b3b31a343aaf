// Amounts in whole tokens, as sidecar writes them with `denominated=true`: the decimal
// point put `decimals` digits from the right, with no leading zero (`.000000000005`).
// Sidecar has no decimals for a token the chain does not name: the point then goes
// before every digit; the same here, so answers stay comparable.

export function denominate(amount: string, decimals: number | undefined): string {
  if (amount === '0' || decimals === 0) return amount;
  if (decimals === undefined) return `.${amount}`;
  if (amount.length <= decimals) return `.${amount.padStart(decimals, '0')}`;
  const whole = amount.length - decimals;
  return `${amount.slice(0, whole)}.${amount.slice(whole)}`;
}
