import assert from "node:assert/strict";
import postgres, { type Sql } from "postgres";
import type { CachedPage } from "../src/fetch/mod.ts";
import {
  PostgresQuestionChannel,
  PostgresQuestionStore,
  PostgresUrlCache,
} from "../edge/postgres/mod.ts";
import { freshDatabase, postgresMissing, restartServer } from "./support/postgres.ts";
import { pgRelay } from "./support/pg_relay.ts";
import { nextQuestion } from "./support/questions.ts";
import { waitFor } from "./support/wait.ts";

// The PostgreSQL stores after the server dropped their connections (a restart, a failover,
// `pg_terminate_backend`, an idle timeout): the first query on each dropped pooled connection
// fails, and the stores run again what is safe to run again, so that their callers never see the
// drop; a transaction whose COMMIT may have been applied is looked up, never applied twice.

const client = (url: string) => postgres(url, { onnotice: () => {} });

const request = (question: string, key?: string) => ({
  question,
  options: [],
  multiSelect: false,
  ...(key ? { key } : {}),
});

/**
 * Opens every pooled connection of `sql` (10 by default), as a busy replica has them open: until
 * as many queries at once all succeed (some may meet connections an earlier drop left).
 */
async function fillPool(sql: Sql): Promise<void> {
  for (let round = 1;; round++) {
    const queries = Array.from({ length: sql.options.max }, () => sql`SELECT pg_sleep(0.05)`);
    const results = await Promise.allSettled(queries);
    const failed = results.find((result) => result.status === "rejected");
    if (!failed) return;
    if (round >= 3) throw failed.reason;
  }
}

/**
 * Ends every other session on the database, as a restart or failover of the server does, and
 * returns at once: the clients have not noticed yet.
 */
async function dropConnections(admin: Sql): Promise<number> {
  const [{ count }] = await admin<{ count: number }[]>`
    SELECT count(pg_terminate_backend(pid))::int AS count FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid()`;
  return count;
}

function entry(url: string, text: string): CachedPage {
  return {
    storedAt: 1_700_000_000_000,
    page: { url, status: 200, mediaType: "text/plain", text, images: [], sizeCapped: false },
  };
}

/** Two clients of a fresh database and an administrator's, ended after the test. */
async function clients() {
  const url = await freshDatabase();
  const [one, two] = [client(url), client(url)];
  const admin = postgres(url, { onnotice: () => {}, max: 1 });
  return {
    url,
    one,
    two,
    admin,
    async [Symbol.asyncDispose]() {
      // With a timeout: a client that lost a connection to the server never ends without one
      // (porsager/postgres#1097).
      await Promise.all([one, two, admin].map((sql) => sql.end({ timeout: 5 })));
    },
  };
}

Deno.test({
  name: "the URL cache reads and writes on at once after the server dropped every connection",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    await using db = await clients();
    const cache = new PostgresUrlCache(db.one);
    await cache.set("https://a.example/", entry("https://a.example/", "before"));
    for (let round = 1; round <= 3; round++) {
      await fillPool(db.one);
      assert.ok(await dropConnections(db.admin) >= db.one.options.max, "every connection dropped");
      const url = `https://a.example/${round}`;
      await cache.set(url, entry(url, `round ${round}`));
      assert.deepEqual(await cache.get(url), entry(url, `round ${round}`));
      assert.deepEqual(
        await cache.get("https://a.example/"),
        entry("https://a.example/", "before"),
      );
    }
  },
});

Deno.test({
  name: "asks, answers and reads go on at once after the server dropped every connection, " +
    "each question stored once, each answer applied once",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    await using db = await clients();
    const [agent, operator] = [db.one, db.two].map((sql) => new PostgresQuestionChannel(sql));
    try {
      const first = agent.ask(request("First?"));
      const question = await nextQuestion(operator);
      await Promise.all([fillPool(db.one), fillPool(db.two)]);
      await dropConnections(db.admin);
      // An ask on the agent's side, and an answer on the operator's, each on a dropped pool.
      const second = agent.ask(request("Second?", "call_2"));
      assert.equal(await operator.answer(question.id, "yes"), true);
      assert.deepEqual(await first, { status: "answered", answer: "yes" });

      await Promise.all([fillPool(db.one), fillPool(db.two)]);
      await dropConnections(db.admin);
      const pending = await operator.pending;
      assert.deepEqual(pending.map((q) => q.question), ["Second?"]);
      assert.equal((await operator.get(question.id))?.status, "answered");
      assert.deepEqual((await operator.resolved(10)).map((q) => q.question.question), ["First?"]);
      assert.equal(await operator.answer(pending[0].id, "no"), true);
      assert.deepEqual(await second, { status: "answered", answer: "no" });
      const [{ count }] = await db.admin<{ count: number }[]>`
        SELECT count(*)::int AS count FROM outpost_questions`;
      assert.equal(count, 2, "each question stored once");
    } finally {
      await Promise.all([agent.close(), operator.close()]);
    }
  },
});

/**
 * An agent's ask waiting on one client, its question as the operator on the other sees it, and
 * the agent's console watch, already watching.
 */
async function waitingAsk(db: { one: Sql; two: Sql }, text: string, key?: string) {
  const [agent, operator] = [db.one, db.two].map((sql) => new PostgresQuestionChannel(sql));
  const stop = new AbortController();
  const changes = agent.changes(stop.signal)[Symbol.asyncIterator]();
  await changes.next();
  const waiting = agent.ask(request(text, key));
  return {
    agent,
    operator,
    changes,
    waiting,
    question: await nextQuestion(operator),
    async [Symbol.asyncDispose]() {
      stop.abort();
      await Promise.all([agent.close(), operator.close()]);
    },
  };
}

Deno.test({
  name: "a waiting ask and a console watch are woken by an answer given after the drop",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    await using db = await clients();
    await using ask = await waitingAsk(db, "Still there?");
    const { agent, operator, changes } = ask;
    await Promise.all([fillPool(db.one), fillPool(db.two)]);
    await dropConnections(db.admin);
    // The watch comes back on a new connection and says that anything may have changed.
    await changes.next();
    assert.equal(await operator.answer(ask.question.id, "yes"), true);
    assert.deepEqual(await ask.waiting, { status: "answered", answer: "yes" });
    // And the LISTEN is back: a question asked now wakes the watch.
    const next = agent.ask(request("Again?"));
    await changes.next();
    const again = await nextQuestion(operator);
    assert.equal(again.question, "Again?");
    await operator.cancel(again.id);
    await next;
  },
});

Deno.test({
  name: "watches that ended after a reconnection leave nothing subscribed",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    await using db = await clients();
    // The client seen through a proxy that counts the calls of LISTEN's callbacks.
    let calls = 0;
    const counted = new Proxy(db.one, {
      get(target, name, receiver) {
        if (name !== "listen") return Reflect.get(target, name, receiver);
        return (channel: string, fn: (payload: string) => void, onlisten?: () => void) =>
          target.listen(channel, (payload) => (calls++, fn(payload)), onlisten);
      },
    });
    const store = new PostgresQuestionStore(counted);
    const stops = Array.from({ length: 5 }, () => new AbortController());
    const watches = stops.map((stop) => store.watch(stop.signal)[Symbol.asyncIterator]());
    for (const watch of watches) await watch.next();
    await dropConnections(db.admin);
    // Each watch hears that the LISTEN came back, then ends.
    for (const watch of watches) assert.equal((await watch.next()).value, undefined);
    for (const stop of stops) stop.abort();
    for (const watch of watches) assert.equal((await watch.next()).done, true);
    // One change notified: no callback of an ended watch is called for it.
    const operator = new PostgresQuestionChannel(db.two);
    const asking = operator.ask(request("Heard?"));
    const question = await nextQuestion(operator);
    await waitFor(() => calls > 0, "the notification");
    await operator.cancel(question.id);
    await asking;
    await operator.close();
    assert.ok(calls <= 2, `${calls} callbacks called for 2 notifications`);
  },
});

Deno.test({
  name: "an ask and an answer whose COMMIT's reply was lost are applied once, and succeed",
  ignore: !!postgresMissing,
  timeout: 60_000,
  async fn() {
    await using db = await clients();
    await using relay = pgRelay(db.url);
    const through = client(relay.url);
    const agent = new PostgresQuestionChannel(through);
    const operator = new PostgresQuestionChannel(db.two);
    try {
      // The tables exist: the next COMMIT is the ask's.
      await agent.pending;
      const lost = relay.loseNextCommitReply();
      const asking = agent.ask(request("Once?"));
      await lost;
      const question = await nextQuestion(operator);
      const answered = relay.loseNextCommitReply();
      assert.equal(await agent.answer(question.id, "yes"), true);
      await answered;
      const rows = await db.admin<{ data: string }[]>`SELECT data FROM outpost_questions`;
      assert.equal(rows.length, 1, "the question stored once");
      assert.equal(JSON.parse(rows[0].data).record.answer, "yes");
      assert.deepEqual(await asking, { status: "answered", answer: "yes" });
    } finally {
      await Promise.all([agent.close(), operator.close()]);
      await through.end({ timeout: 5 });
    }
  },
});

Deno.test({
  name: "a waiting ask outlives a restart of the server, woken by an answer given after it",
  ignore: !!postgresMissing,
  timeout: 120_000,
  async fn() {
    await using db = await clients();
    await using ask = await waitingAsk(db, "Through a restart?", "call_restart");
    await restartServer(async () => {
      await assert.rejects(db.admin`SELECT 1`, "the server is down");
    });
    // Once the server is back, the watch listens again and says that anything may have changed.
    await ask.changes.next();
    assert.equal(await ask.operator.answer(ask.question.id, "yes"), true);
    assert.deepEqual(await ask.waiting, { status: "answered", answer: "yes" });
  },
});
