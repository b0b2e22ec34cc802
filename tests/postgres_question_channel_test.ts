import assert from "node:assert/strict";
import postgres from "postgres";
import {
  PostgresQuestionChannel,
  type PostgresQuestionChannelOptions,
  PostgresUrlCache,
} from "../edge/postgres/mod.ts";
import type { QuestionChannel } from "../src/human/mod.ts";
import { questionChannelContract } from "../src/testing/mod.ts";
import { FakeClock } from "./support/fake_clock.ts";
import { freshDatabase, postgresMissing } from "./support/postgres.ts";
import { nextQuestion } from "./support/questions.ts";
import { waitFor } from "./support/wait.ts";

// The QuestionChannel contract on PostgreSQL, with two channel objects on two clients of one
// database as peers (as two replicas hold them); below, what is the PostgreSQL store's own.

const client = (url: string) => postgres(url, { onnotice: () => {} });

const count = questionChannelContract({
  name: "PostgresQuestionChannel",
  async create(setup) {
    const url = await freshDatabase();
    const [one, two] = [client(url), client(url)];
    const channel = new PostgresQuestionChannel(one, setup);
    const peer = new PostgresQuestionChannel(two, setup);
    return {
      channel,
      peer,
      async close() {
        await Promise.all([channel.close(), peer.close()]);
        await Promise.all([one.end(), two.end()]);
      },
    };
  },
  test: (definition) =>
    Deno.test({ ...definition, ignore: definition.ignore || !!postgresMissing }),
  peer: true,
});

Deno.test("the contract runs whole on PostgreSQL: peers and clock cases included", () => {
  assert.equal(count, 32);
});

/** Two channel objects on two clients of a fresh database, as two replicas hold them. */
async function replicas(options: PostgresQuestionChannelOptions = {}) {
  const url = await freshDatabase();
  const clients = [client(url), client(url)];
  const [one, two] = clients.map((sql) => new PostgresQuestionChannel(sql, options));
  return {
    one,
    two,
    clients,
    async [Symbol.asyncDispose]() {
      await Promise.all([one.close(), two.close()]);
      // With a timeout: a client that lost a connection to the server never ends without one
      // (porsager/postgres#1097).
      await Promise.all(clients.map((sql) => sql.end({ timeout: 5 })));
    },
  };
}

async function waitForPending(channel: QuestionChannel, count: number) {
  let pending: Awaited<QuestionChannel["pending"]> = [];
  await waitFor(async () => (pending = await channel.pending).length === count, `${count} pending`);
  return pending;
}

const request = (question: string, key?: string) => ({
  question,
  options: [],
  multiSelect: false,
  ...(key ? { key } : {}),
});

Deno.test({
  name: "a resolved question is kept for retainMs on the clock, then a later ask deletes it",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    const clock = new FakeClock();
    await using pair = await replicas({ clock, retainMs: 1_000 });
    const outcome = pair.one.ask(request("Old?"));
    const old = await nextQuestion(pair.two);
    assert.equal(await pair.two.answer(old.id, "yes"), true);
    await outcome;
    await clock.advance(1_000);
    const fresh = pair.one.ask(request("New?"));
    const kept = await nextQuestion(pair.two);
    assert.equal((await pair.two.get(old.id))?.status, "answered", "kept to the end of retainMs");
    await pair.two.cancel(kept.id);
    await fresh;
    await clock.advance(1);
    const later = pair.one.ask(request("Newer?"));
    const newer = await nextQuestion(pair.two);
    assert.equal(await pair.two.get(old.id), undefined, "deleted by the ask after it");
    assert.equal((await pair.two.get(kept.id))?.status, "cancelled");
    await pair.two.cancel(newer.id);
    await later;
  },
});

Deno.test({
  name: "channels in other spaces of one database share nothing: questions, keys, answers",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    await using pair = await replicas();
    const other = new PostgresQuestionChannel(pair.clients[1], { space: "team-b" });
    try {
      const outcome = pair.one.ask(request("Ours?", "k"));
      const question = await nextQuestion(pair.two);
      assert.deepEqual(await other.pending, []);
      assert.equal(await other.get(question.id), undefined);
      assert.equal(await other.answer(question.id, "theirs"), false);
      // The same key in the other space is another question.
      const theirs = other.ask(request("Ours?", "k"));
      const [their] = await waitForPending(other, 1);
      assert.notEqual(their.id, question.id);
      await other.answer(their.id, "b");
      await pair.two.answer(question.id, "a");
      assert.deepEqual(await Promise.all([outcome, theirs]), [
        { status: "answered", answer: "a" },
        { status: "answered", answer: "b" },
      ]);
    } finally {
      await other.close();
    }
  },
});

Deno.test({
  name: "waiting asks and watchers wake after the database dropped every connection",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    await using pair = await replicas();
    const stop = new AbortController();
    const changes = pair.one.changes(stop.signal)[Symbol.asyncIterator]();
    await changes.next();
    const outcome = pair.one.ask(request("Still there?", "call_1"));
    const question = await nextQuestion(pair.two);
    // As a restart or failover of the server does: every session but this one is ended.
    const [admin] = pair.clients;
    await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity
      WHERE datname = current_database() AND pid <> pg_backend_pid()`;
    // The clients reconnect on their next query (a query on a connection that was dropped while
    // idle fails once, as the operator API then says); the LISTEN comes back on its own.
    await waitFor(async () => {
      try {
        return await pair.two.answer(question.id, "yes");
      } catch {
        return false;
      }
    }, "an answer through a new connection");
    assert.deepEqual(await outcome, { status: "answered", answer: "yes" });
    await waitFor(async () => !(await changes.next()).done, "a change after the reconnect");
    stop.abort();
    assert.equal((await changes.next()).done, true);
  },
});

Deno.test({
  name: "a user who may not create tables works on tables made for it once",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    const url = await freshDatabase();
    const owner = client(url);
    const user = client(url.replace("//outpost@", "//agent@"));
    try {
      // The owner makes the tables once (the first start); the agent's role may use them only.
      const made = new PostgresQuestionChannel(owner);
      await made.pending;
      await new PostgresUrlCache(owner).get("https://example.com/");
      await owner.unsafe(`
        CREATE ROLE agent LOGIN;
        REVOKE CREATE ON SCHEMA public FROM PUBLIC;
        GRANT SELECT, INSERT, UPDATE, DELETE ON outpost_questions, outpost_url_cache TO agent;
        GRANT USAGE ON SEQUENCE outpost_question_seq TO agent`);
      const channel = new PostgresQuestionChannel(user);
      const outcome = channel.ask(request("Allowed?"));
      const question = await nextQuestion(made);
      assert.equal(await channel.answer(question.id, "yes"), true);
      assert.deepEqual(await outcome, { status: "answered", answer: "yes" });
      const page = { url: "https://a.example/", status: 200, mediaType: "text/plain", text: "a" };
      const entry = { storedAt: 1, page: { ...page, images: [], sizeCapped: false } };
      await new PostgresUrlCache(user).set(page.url, entry);
      assert.deepEqual(await new PostgresUrlCache(owner).get(page.url), entry);
      await Promise.all([made.close(), channel.close()]);
    } finally {
      await Promise.all([owner.end(), user.end()]);
    }
  },
});

Deno.test({
  name: "a foreign notification on the channel wakes watchers to read again, and breaks nothing",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    await using pair = await replicas();
    const stop = new AbortController();
    try {
      const changes = pair.one.changes(stop.signal)[Symbol.asyncIterator]();
      await changes.next();
      const [, other] = pair.clients;
      for (const payload of ["not json", "null", '{"ids":["x"]}']) {
        await other`SELECT pg_notify('outpost_questions', ${payload})`;
        assert.equal((await changes.next()).done, false, payload);
      }
      // The watch still hears real changes.
      const outcome = pair.two.ask(request("Still listening?"));
      await changes.next();
      const question = await nextQuestion(pair.one);
      await pair.one.answer(question.id, "yes");
      assert.deepEqual(await outcome, { status: "answered", answer: "yes" });
    } finally {
      stop.abort();
    }
  },
});
