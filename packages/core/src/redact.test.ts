import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isSecretParameterName, redactSecrets, redactUrl } from "./redact.js";

/** Every secret-looking parameter name the issue lists, in the spellings services use. */
const SECRET_PARAMETERS = [
  "password",
  "passwd",
  "pass",
  "pwd",
  "token",
  "access_token",
  "refresh_token",
  "key",
  "api_key",
  "apikey",
  "API-Key",
  "secret",
  "client_secret",
  "signature",
  "sig",
  "auth",
  "credential",
  "X-Amz-Signature",
  "X-Amz-Credential",
  "X-Amz-Security-Token",
  "X-Goog-Signature",
  "AWSAccessKeyId",
  "pass%77ord",
];

/** Secrets as they appear in URLs: URL-safe characters and percent-escapes, never a bare `***`. */
const secret = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_~".split(""),
      ),
      fc.constantFrom("%40", "%3A", "%2F", "%26", "%3D", "%23"),
    ),
    { minLength: 6, maxLength: 24 },
  )
  .map((parts) => parts.join(""));

const word = fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/);
const host = fc.constantFrom("127.0.0.1:6379", "models.example.org", "[::1]:8443", "h");
const scheme = fc.constantFrom("https", "http", "redis", "rediss", "s3");
const plainParameter = fc
  .tuple(word, fc.stringMatching(/^[A-Za-z0-9._-]{0,12}$/))
  .filter(([name]) => !isSecretParameterName(name))
  .map(([name, value]) => `${name}=${value}`);

describe("redactUrl and redactSecrets", () => {
  it("hides user information, secret parameters and known secrets", () => {
    expect(redactUrl("https://user:pw@host/m.lgm?token=abc")).toBe(
      "https://***:***@host/m.lgm?token=***",
    );
    expect(redactUrl("redis://:s3cretPW@127.0.0.1:6390")).toBe("redis://:***@127.0.0.1:6390");
    expect(redactUrl("redis://127.0.0.1:6379/0?password=s3cret")).toBe(
      "redis://127.0.0.1:6379/0?password=***",
    );
    expect(redactUrl("https://ghp_abc123@github.com/o/r")).toBe("https://***@github.com/o/r");
    // Not a URL a parser takes: the credentials go all the same.
    expect(redactUrl("redis://:s3cret PW@[bad")).toBe("redis://:***@[bad");
    expect(
      redactSecrets(
        "model https://b.s3.amazonaws.com/m.lgm?X-Amz-Credential=AKIA%2F1&X-Amz-Date=20240101&X-Amz-Signature=f00d: HTTP 403 Forbidden",
      ),
    ).toBe(
      "model https://b.s3.amazonaws.com/m.lgm?X-Amz-Credential=***&X-Amz-Date=20240101&X-Amz-Signature=***: HTTP 403 Forbidden",
    );
    expect(redactSecrets("(see /m.lgm?token=abc).")).toBe("(see /m.lgm?token=***).");
    expect(redactSecrets("#access_token=xyz&token_type=bearer")).toBe(
      "#access_token=***&token_type=bearer",
    );
    expect(redactSecrets("AUTH p@ss and p%40ss refused", ["p@ss"])).toBe(
      "AUTH *** and *** refused",
    );
    // Too short to search for: it would star out ordinary words.
    expect(redactSecrets("a b", ["a"])).toBe("a b");
  });

  it("leaves ordinary text alone: names that merely contain a secret word, mail addresses, paths", () => {
    for (const text of [
      "--class-weight B-NP=1e300: expected a finite weight",
      "train.txt:3: expected 2 columns",
      "mail admin@example.org about https://example.org/a?page=2&sort=key",
      "https://example.org/m.lgm?monkey=1&bypass=2&keyboard=3",
      "redis://127.0.0.1:6379",
      "mailto:someone@example.org",
    ]) {
      expect(redactSecrets(text)).toBe(text);
      expect(redactUrl(text)).toBe(text);
    }
  });

  it("no generated secret survives, wherever the URL sits in a message", () => {
    fc.assert(
      fc.property(
        scheme,
        host,
        fc.option(secret, { nil: undefined }),
        secret,
        fc.constantFrom(...SECRET_PARAMETERS),
        secret,
        fc.array(plainParameter, { maxLength: 3 }),
        fc.constantFrom("?", "#"),
        fc.constantFrom(["", ""], ["cannot fetch ", ": HTTP 403"], ["(", ")."], ['"', '"']),
        (s, h, user, password, name, value, plain, separator, [before, after]) => {
          const url = `${s}://${user ?? ""}:${password}@${h}/m.lgm${separator}${[...plain, `${name}=${value}`].join("&")}`;
          for (const out of [redactUrl(url), redactSecrets(`${before}${url}${after}`)]) {
            expect(out).not.toContain(password);
            expect(out).not.toContain(value);
            if (user !== undefined) expect(out).not.toContain(user);
            for (const p of plain) expect(out).toContain(p);
          }
        },
      ),
    );
  });

  it("known secrets are hidden however they are written", () => {
    fc.assert(
      fc.property(secret, fc.string({ maxLength: 20 }), (known, prose) => {
        const text = `${prose}${known} ${decodeURIComponent(known)}${prose}`;
        const out = redactSecrets(text, [known]);
        expect(out).not.toContain(known);
        expect(out).not.toContain(decodeURIComponent(known));
      }),
    );
  });

  it("a URL without secrets is unchanged, character for character", () => {
    fc.assert(
      fc.property(
        scheme,
        host,
        fc.array(word, { maxLength: 3 }),
        fc.array(plainParameter, { maxLength: 4 }),
        fc.option(plainParameter, { nil: undefined }),
        (s, h, path, query, fragment) => {
          const url = `${s}://${h}/${path.join("/")}${query.length > 0 ? `?${query.join("&")}` : ""}${fragment === undefined ? "" : `#${fragment}`}`;
          expect(redactUrl(url)).toBe(url);
          expect(redactSecrets(`fetching ${url}: done`)).toBe(`fetching ${url}: done`);
        },
      ),
    );
  });
});
