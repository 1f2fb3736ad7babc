// Money as integer minor units: an amount is a decimal string or a JSON number
// with at most the currency's minor-unit digits (ISO 4217 via ICU: JPY 0, EUR 2, BHD 3). Arithmetic is
// done in BigInt; nothing ever passes through floating point.
const DECIMAL = /^(0|[1-9]\d{0,17})(?:\.(\d+))?$/;

// Building an Intl.NumberFormat costs far more than a payment's SQL round trip; currencies are few.
const digitsByCurrency = new Map<string, number>();

function minorDigits(currency: string): number {
  let digits = digitsByCurrency.get(currency);
  if (digits === undefined) {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
    // Only codes Intl accepted are remembered (it throws on malformed ones), so the map stays small.
    digitsByCurrency.set(currency, digits);
  }
  return digits;
}

/** Minor units of `amount`, or a message saying why it is not acceptable for `currency`. */
export function parseAmount(amount: string | number, currency: string): { minor: bigint } | { error: string } {
  // A JSON number is taken by its shortest round-trip text (0.1 → "0.1"); 1e21 or 0.30000000000000004 fail below.
  const text = typeof amount === 'number' ? String(amount) : amount.trim();
  const match = DECIMAL.exec(text);
  if (!match) return { error: 'must be a non-negative decimal number such as "12.50"' };
  const digits = minorDigits(currency);
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return { error: `has more than ${digits} decimal places for ${currency}` };
  return { minor: BigInt(match[1]!) * 10n ** BigInt(digits) + BigInt(fraction.padEnd(digits, '0') || '0') };
}

/** Minor units back to the decimal string clients see, e.g. 1250 EUR → "12.50". */
export function formatMinor(minor: number | bigint, currency: string): string {
  const digits = minorDigits(currency);
  const value = BigInt(minor);
  if (digits === 0) return value.toString();
  const unit = 10n ** BigInt(digits);
  return `${value / unit}.${(value % unit).toString().padStart(digits, '0')}`;
}

/** Largest amount stored (int8 read back as a JS number must stay exact). */
export const MAX_MINOR = BigInt(Number.MAX_SAFE_INTEGER);
