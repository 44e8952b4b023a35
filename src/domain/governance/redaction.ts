// What a turn's words keep of a payment card number or a US social security number said in them: nothing. Before a
// turn is stored (and sealed, transcriptKeys.ts) each is replaced by `[card]` or `[ssn]` (issue 36 §5,
// docs/decisions.md §16); e-mail addresses and phone numbers become `[email]` and `[phone]` when the organization's
// policy says so (redactionPolicy.ts). Pure text work, no I/O: the same words and options give the same stored text.
//
// A card number: 13 to 19 digits, alone or in groups split by single spaces or dashes, whose Luhn check holds. A run
// of such groups longer than a card (a card said with its expiry or security code after it) is searched for a card
// that starts and ends at its group boundaries. An SSN: 3-2-4 digits split by dashes or by spaces (the same
// separator twice), with an area other than 000, 666 and 900-999, a group other than 00 and a serial other than
// 0000. Nine digits said without separators are not taken for an SSN: order numbers and the like are, far more often.
//
// An e-mail address: a local part, `@`, and a domain with a dot and a top-level label of two letters or more. A
// phone number: what libphonenumber-js finds in text and holds valid, read in the conversation's own region (a
// number said without its country code is read as a number of the region of the line the conversation is on).
// E-mail addresses go first (their digits are not a phone number), phone numbers last (a card number is a card).
import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js/max';

/** Digits in groups split by one space or dash, not touching another digit. */
const DIGIT_RUN = /(?<!\d)\d+(?:[ -]\d+)*(?!\d)/g;
const SSN = /(?<!\d)(\d{3})([- ])(\d{2})\2(\d{4})(?!\d)/g;
const CARD_MIN_DIGITS = 13;
const CARD_MAX_DIGITS = 19;

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 1, double = false; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The run with every card in it (at group boundaries, the longest first from each start) replaced by `[card]`. */
function redactCardsInRun(run: string): string {
  const groups = run.split(/([ -])/); // digits, separator, digits, …
  const digitGroups = groups.filter((_, i) => i % 2 === 0);
  const total = digitGroups.reduce((n, g) => n + g.length, 0);
  if (total < CARD_MIN_DIGITS) return run;
  const out: string[] = [];
  let start = 0;
  while (start < digitGroups.length) {
    let matchedEnd = -1;
    let digits = '';
    const candidates: number[] = [];
    for (let end = start; end < digitGroups.length && digits.length <= CARD_MAX_DIGITS; end++) {
      digits += digitGroups[end];
      if (digits.length >= CARD_MIN_DIGITS && digits.length <= CARD_MAX_DIGITS) candidates.push(end);
    }
    for (let c = candidates.length - 1; c >= 0 && matchedEnd < 0; c--) {
      const end = candidates[c]!;
      if (luhnValid(digitGroups.slice(start, end + 1).join(''))) matchedEnd = end;
    }
    if (out.length > 0) out.push(groups[2 * start - 1]!); // the separator before this group
    if (matchedEnd >= 0) {
      out.push('[card]');
      start = matchedEnd + 1;
    } else {
      out.push(digitGroups[start]!);
      start++;
    }
  }
  return out.join('');
}

function validSsn(area: string, group: string, serial: string): boolean {
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000';
}

const EMAIL = /(?<![A-Za-z0-9._%+-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/g;

/** The phone numbers in `text` replaced by `[phone]`. */
function redactPhones(text: string, region: CountryCode | undefined): string {
  const found = findPhoneNumbersInText(text, region ? { defaultCountry: region } : {});
  if (found.length === 0) return text;
  let out = '';
  let from = 0;
  for (const number of found) {
    out += text.slice(from, number.startsAt) + '[phone]';
    from = number.endsAt;
  }
  return out + text.slice(from);
}

/** What is replaced beyond card numbers and SSNs (the organization's policy, redactionPolicy.ts). */
export interface RedactionOptions {
  emails?: boolean;
  phones?: boolean;
  /** The region a phone number said without its country code is read in (ISO 3166 alpha-2). */
  region?: CountryCode;
}

/** The words as stored: card numbers and SSNs replaced, and what `options` adds; `redacted` says whether anything was. */
export function redactTranscript(text: string, options: RedactionOptions = {}): { text: string; redacted: boolean } {
  let redacted = false;
  const withoutEmails = options.emails ? text.replace(EMAIL, '[email]') : text;
  if (withoutEmails !== text) redacted = true;
  const withoutCards = withoutEmails.replace(DIGIT_RUN, (run) => {
    const out = redactCardsInRun(run);
    if (out !== run) redacted = true;
    return out;
  });
  const withoutSsns = withoutCards.replace(SSN, (match: string, area: string, _sep: string, group: string, serial: string) => {
    if (!validSsn(area, group, serial)) return match;
    redacted = true;
    return '[ssn]';
  });
  const withoutPhones = options.phones ? redactPhones(withoutSsns, options.region) : withoutSsns;
  if (withoutPhones !== withoutSsns) redacted = true;
  return { text: withoutPhones, redacted };
}
