/**
 * A `deploy` tool guarded by `requireApproval` on an in-memory channel, and the services it
 * deployed: the approval-flow tests of each agent framework share it.
 *
 * @module
 */
import * as z from "zod";
import { tool } from "../../mod.ts";
import { MemoryQuestionChannel, requireApproval } from "../../src/human/mod.ts";

/** The guarded tool, its channel, and what it ran. */
export function guardedDeploy() {
  const ran: string[] = [];
  const deploy = tool({
    name: "deploy",
    description: "Deploys a service.",
    input: z.object({ service: z.string() }),
    execute: ({ service }) => {
      ran.push(service);
      return `Deployed ${service}.`;
    },
  });
  const channel = new MemoryQuestionChannel();
  return { ran, channel, guarded: requireApproval(deploy, channel) };
}
