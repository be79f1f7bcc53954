/**
 * The one place secrets are taken out of text that is printed or stored for people to read
 * (errors, progress lines, job records): credentials in URLs, query and fragment parameters
 * whose name says they are secret, and secrets the caller knows (a password read from a file).
 * A text without any is returned unchanged, byte for byte: URLs are never re-serialised
 * (`URL.href` would rewrite `:06379` and `%7E`, and make a message harder to match with its input).
 */

/** Parameter names, lower-cased with everything but letters and digits dropped, that are secret. */
const SECRET_NAMES = new Set([
  "auth",
  "authorization",
  "jwt",
  "key",
  "pass",
  "passphrase",
  "passwd",
  "password",
  "pw",
  "pwd",
  "secret",
  "session",
  "sig",
  "signature",
  "token",
]);

/**
 * Endings of secret names: `access_token`, `client_secret`, `X-Amz-Signature`,
 * `X-Amz-Credential`, `X-Amz-Security-Token`, `X-Goog-Signature`, `api_key`, `AWSAccessKeyId`…
 */
const SECRET_ENDINGS = [
  "accesskey",
  "accesskeyid",
  "apikey",
  "authkey",
  "credential",
  "credentials",
  "passwd",
  "password",
  "privatekey",
  "secret",
  "secretkey",
  "sessionid",
  "sessionkey",
  "signature",
  "token",
];

const MASK = "***";

/** Whether a query or fragment parameter of this name carries a secret (its value is hidden). */
export function isSecretParameterName(name: string): boolean {
  const normal = decodedOrSelf(name.replace(/\+/g, " "))
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "");
  return SECRET_NAMES.has(normal) || SECRET_ENDINGS.some((ending) => normal.endsWith(ending));
}

/**
 * `url` (the whole string is taken as one URL, parseable or not) with its user and password
 * replaced by `***` (`https://***:***@host`, `redis://:***@host`) and the values of its secret
 * parameters too (`?token=***`). A URL without any is returned unchanged.
 */
export function redactUrl(url: string): string {
  return redactParameters(url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, maskUserInfo));
}

/**
 * `text` with every secret hidden: the credentials and secret parameters of every URL in it (as
 * {@link redactUrl}), secret parameters of a query string quoted without its URL, and each of
 * `known` (a password given apart from any URL) wherever it appears, as it is or percent-encoded.
 * Secrets of fewer than 3 characters are not searched for: they would star out ordinary words.
 */
export function redactSecrets(text: string, known: Iterable<string> = []): string {
  let out = text;
  for (const secret of knownForms(known)) out = out.split(secret).join(MASK);
  // The authority of a URL in prose ends at white space; up to its last '@' is user information.
  out = out.replace(/\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#]*)@/gi, maskUserInfo);
  return redactParameters(out);
}

function maskUserInfo(_match: string, scheme: string, userInfo: string): string {
  const colon = userInfo.indexOf(":");
  const user = colon < 0 ? userInfo : userInfo.slice(0, colon);
  return `${scheme}${user === "" ? "" : MASK}${colon < 0 ? "" : `:${MASK}`}@`;
}

/** Prose around a URL: a value ending in these is taken to end before them (`(…?token=abc).`). */
const TRAILING = /[).,;:!?\]}]+$/;

function redactParameters(text: string): string {
  return text.replace(
    /([?&#;])([^=&#?;\s]+)=([^&#\s"'<>`]*)/g,
    (match, separator: string, name: string, value: string) => {
      if (value === "" || !isSecretParameterName(name)) return match;
      const trailing = TRAILING.exec(value)?.[0] ?? "";
      const kept = value.length === trailing.length ? "" : trailing;
      return `${separator}${name}=${MASK}${kept}`;
    },
  );
}

/** The secrets to search for: each as given, percent-decoded and percent-encoded, longest first. */
function knownForms(known: Iterable<string>): string[] {
  const forms = new Set<string>();
  for (const secret of known) {
    for (const form of [secret, decodedOrSelf(secret), encodeURIComponent(secret)]) {
      if (form.length >= 3) forms.add(form);
    }
  }
  // A longer form first: hiding a shorter one inside it first would leave the rest of it.
  return [...forms].sort((a, b) => b.length - a.length);
}

function decodedOrSelf(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
