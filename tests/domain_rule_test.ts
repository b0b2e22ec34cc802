// The rule grammar, through the two public entry points that take rules.
import assert from "node:assert/strict";
import { nativeWebSearch, SetupError } from "../mod.ts";
import { DomainPolicy } from "../src/hosted/mod.ts";

function canonical(rule: string): string {
  const [viaPolicy] = DomainPolicy.block([rule]).rules;
  const [viaSearch] = nativeWebSearch({ blockedDomains: [rule] }).blockedDomains ?? [];
  assert.equal(viaPolicy, viaSearch);
  return viaPolicy;
}

function rejects(rule: unknown, message: RegExp, hint?: RegExp): void {
  for (
    const build of [
      () => DomainPolicy.allow([rule as string]),
      () => DomainPolicy.block([rule as string]),
      () => nativeWebSearch({ allowedDomains: [rule as string] }),
    ]
  ) {
    assert.throws(build, (error: unknown) => {
      assert.ok(error instanceof SetupError, `${JSON.stringify(rule)}: ${error}`);
      assert.match(error.message, message);
      if (hint) assert.match(error.hint ?? "", hint);
      return true;
    });
  }
}

Deno.test("valid rules come back canonical", () => {
  assert.equal(canonical("example.com"), "example.com");
  assert.equal(canonical("  Docs.Example.COM "), "docs.example.com");
  assert.equal(canonical("example.com/blog"), "example.com/blog");
  assert.equal(canonical("example.com/blog/"), "example.com/blog/");
  assert.equal(canonical("example.com/"), "example.com");
  assert.equal(canonical("example.com/docs/*/api"), "example.com/docs/*/api");
  assert.equal(canonical("example.com/%7Euser/%2f"), "example.com/~user/%2F");
  assert.equal(canonical("xn--bcher-kva.de"), "xn--bcher-kva.de");
  assert.equal(canonical("my_host.example.com"), "my_host.example.com");
  // Registrable domains under ICANN suffixes, and names under private suffixes, are domains.
  assert.equal(canonical("github.io"), "github.io");
  assert.equal(canonical("User.GitHub.io"), "user.github.io");
  assert.equal(canonical("example.co.uk"), "example.co.uk");
  assert.equal(canonical("www.ck"), "www.ck");
  assert.equal(canonical("intranet.local"), "intranet.local");
});

Deno.test("a rule must name a registrable domain, not a public suffix or a single label", () => {
  rejects("com", /is a public suffix/, /every site under `com`.*example\.com/);
  rejects("co.uk", /is a public suffix/, /example\.co\.uk/);
  rejects("CO.UK/blog", /is a public suffix/);
  rejects("foo.ck", /is a public suffix/); // every name under .ck is a suffix, except www.ck
  rejects("xn--p1ai", /is a public suffix/);
  rejects("localhost", /single label/, /full domain such as example\.com/);
  rejects("example", /single label/);
  rejects("intranet/wiki", /single label/);
});

Deno.test("duplicates collapse to the first", () => {
  assert.deepEqual(DomainPolicy.allow(["a.com", "A.com", "b.com", "a.com/"]).rules, [
    "a.com",
    "b.com",
  ]);
});

Deno.test("the rule grammar rejects what it does not describe, naming the rule", () => {
  rejects("", /\[0\] \(""\) is empty/);
  rejects("https://example.com", /has a scheme/, /bare domain/);
  rejects("//example.com", /has a scheme/);
  rejects("example.com:8080", /has a port/);
  rejects("user@example.com", /has userinfo/);
  rejects("user:pw@example.com/x", /has userinfo/);
  rejects("example.com/?q=1", /query or fragment/);
  rejects("example.com#top", /query or fragment/);
  rejects("*.example.com", /wildcard in the domain/, /covers every subdomain/);
  rejects("ex*ample.com", /wildcard in the domain/);
  rejects("example.com/*/x/*", /more than one `\*`/);
  rejects(".example.com", /empty label/);
  rejects("example.com.", /empty label/);
  rejects("example..com", /empty label/);
  rejects("exa mple.com", /whitespace/);
  rejects("example.com/a b", /whitespace/);
  rejects("bücher.de", /non-ASCII.*homograph/, /xn--bcher-kva\.de/);
  rejects("аpple.com", /non-ASCII/, /xn--pple-43d\.com/); // Cyrillic "а"
  rejects("192.168.0.1", /IP address/);
  rejects("[::1]", /IP address/);
  rejects("-bad.com", /not a valid hostname/);
  rejects("bad-.com", /not a valid hostname/);
  rejects("a".repeat(64) + ".com", /not a valid hostname/);
  rejects("example.123", /not a valid hostname/);
  rejects("example.com/a\\b", /characters a URL path cannot hold/);
  rejects("example.com/%zz", /characters a URL path cannot hold/);
  rejects("example.com//x", /empty path segment/);
  rejects("example.com/a/../b", /dot segment/);
  rejects("example.com/%2e%2E/admin", /dot segment/);
  rejects("example.com/a%2F..%2Fb", /dot segment/);
  rejects(42, /must be a string, not a number/);
  rejects(null, /must be a string, not null/);
});

Deno.test("the list itself must be an array", () => {
  assert.throws(() => DomainPolicy.block("example.com" as unknown as string[]), /must be an array/);
  assert.throws(() => DomainPolicy.allow([]), /is empty: .* would permit nothing/);
  assert.deepEqual(DomainPolicy.block([]).rules, []);
});
