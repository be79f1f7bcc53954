import { describe, expect, it } from "vitest";
import { accessFailure, connectionOf, hasRedisPassword, redactCredentials } from "./connection.js";

describe("credentials are never printed", () => {
  it("redacts the password of a Redis URL, in its user information or its query", () => {
    const target = { redis: "redis://127.0.0.1:6379/0?password=s3cret" };
    expect(redactCredentials(`cannot reach Redis at ${target.redis}: s3cret`, target)).toBe(
      "cannot reach Redis at redis://127.0.0.1:6379/0?password=***: ***",
    );
    expect(redactCredentials("AUTH p@ss refused", { redis: "redis://u:p%40ss@h" })).toBe(
      "AUTH *** refused",
    );
  });

  it("redacts URLs and the password itself inside any message", () => {
    const target = { redis: "redis://:s3cretPW@127.0.0.1:6390" };
    expect(
      redactCredentials("connect to redis://:s3cretPW@127.0.0.1:6390 failed (s3cretPW)", target),
    ).toBe("connect to redis://:***@127.0.0.1:6390 failed (***)");
    expect(
      redactCredentials("AUTH hunter22 refused", { redis: "redis://h", password: "hunter22" }),
    ).toBe("AUTH *** refused");
  });

  it("says which URL is wrong without showing its password", () => {
    expect(() => connectionOf({ redis: "redis://:s3cretPW@h:1:2" })).toThrow(
      /^--redis redis:\/\/:\*\*\*@h:1:2: not a URL/,
    );
    expect(() => connectionOf({ redis: "http://:s3cretPW@h" })).toThrow(
      /^--redis http:\/\/:\*\*\*@h\/?: expected a redis:\/\//,
    );
  });

  it("tells a URL with a password from one that URL.href merely rewrites", () => {
    expect(hasRedisPassword("redis://:s3cretPW@127.0.0.1:6390")).toBe(true);
    expect(hasRedisPassword("rediss://worker:p%40ss@queue.internal:6380/2")).toBe(true);
    // Rewritten by URL.href (`:6379`, `/%200`), and no password in either.
    expect(hasRedisPassword("redis://h:06379")).toBe(false);
    expect(hasRedisPassword("redis://h/ 0")).toBe(false);
    expect(hasRedisPassword("redis://worker@h:6379")).toBe(false);
    expect(hasRedisPassword("redis://h:6379/0?password=s3cret")).toBe(true);
    expect(hasRedisPassword("not a URL")).toBe(false);
  });

  it("takes a password given apart from the URL over the URL's", () => {
    expect(connectionOf({ redis: "redis://:a@h:1", password: "b" })).toMatchObject({
      password: "b",
    });
    expect(connectionOf({ redis: "redis://u:%zz@h:1" })).toMatchObject({
      username: "u",
      password: "%zz",
    });
    // As ioredis reads such a URL.
    expect(connectionOf({ redis: "redis://h:1/2?password=p%40ss" })).toMatchObject({
      password: "p@ss",
      db: 2,
    });
  });
});

describe("accessFailure: a refusal is final, anything else may pass", () => {
  const target = { redis: "redis://:s3cretPW@127.0.0.1:6390" };

  it("reads Redis's refusals", () => {
    const wrong = accessFailure(
      target,
      new Error("WRONGPASS invalid username-password pair or user is disabled."),
    );
    expect(wrong?.message).toBe(
      "Redis at redis://:***@127.0.0.1:6390 refused the password (WRONGPASS)",
    );
    expect(wrong?.code).toBe("usage");
    expect(accessFailure(target, new Error("ERR invalid password"))?.refused).toBe(
      "wrong-password",
    );
    expect(accessFailure(target, new Error("NOAUTH Authentication required."))?.refused).toBe(
      "no-password",
    );
    expect(
      accessFailure(target, new Error("NOPERM User w has no permissions to run the 'info' command"))
        ?.refused,
    ).toBe("no-permission");
    const tls = Object.assign(new Error("self-signed certificate"), {
      code: "DEPTH_ZERO_SELF_SIGNED_CERT",
    });
    expect(accessFailure(target, tls)?.refused).toBe("tls");
  });

  it("leaves outages to the retries", () => {
    expect(accessFailure(target, new Error("connect ECONNREFUSED 127.0.0.1:6390"))).toBeUndefined();
    expect(accessFailure(target, new Error("Connection is closed."))).toBeUndefined();
  });
});
