import assert from "node:assert/strict";
import postgres from "postgres";
import { PostgresQuestionChannel } from "../edge/postgres/mod.ts";
import { questionChannelContract } from "../src/testing/mod.ts";
import { freshDatabase, postgresMissing } from "./support/postgres.ts";

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
