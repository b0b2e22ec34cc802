import type * as z from "zod/v4/core";
import { quoteText } from "./fence.ts";

interface SchemaDef {
  type: string;
  shape?: Record<string, z.$ZodType>;
  element?: z.$ZodType;
  innerType?: z.$ZodType;
}

function defOf(schema: z.$ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

function acceptsAbsence(schema: z.$ZodType): boolean {
  const type = defOf(schema).type;
  return type === "optional" || type === "default" || type === "prefault";
}

function unwrap(schema: z.$ZodType): z.$ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (!def.innerType) return current;
    current = def.innerType;
  }
}

/** Input made ready for validation, and the keys no schema names, at any depth. */
export interface PreparedInput {
  value: unknown;
  unknownKeys: z.$ZodIssueUnrecognizedKeys[];
}

/**
 * Strict-mode models send `null` for optional fields they leave out; this turns those nulls back
 * into absent keys, at any depth, so defaults apply and validation sees what was meant. It also
 * collects keys the schema does not name, at any depth, since zod only rejects them where an
 * object was declared strict.
 */
export function prepareInput(schema: z.$ZodType, value: unknown): PreparedInput {
  const unknownKeys: z.$ZodIssueUnrecognizedKeys[] = [];
  const walk = (node: z.$ZodType, item: unknown, path: PropertyKey[]): unknown => {
    const def = defOf(unwrap(node));
    if (def.type === "object" && def.shape && isPlainObject(item)) {
      const out: Record<string, unknown> = {};
      let unknown: string[] | undefined;
      // Every call's input passes here: no pairs, and a path only for what has keys inside.
      for (const key of Object.keys(item)) {
        const child = item[key];
        const field = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
        if (!field) (unknown ??= []).push(key);
        else if (!(child === null && acceptsAbsence(field))) {
          out[key] = typeof child === "object" && child !== null
            ? walk(field, child, [...path, key])
            : child;
        }
      }
      if (unknown) {
        unknownKeys.push({
          code: "unrecognized_keys",
          keys: unknown,
          path,
          message: "",
          input: item,
        });
      }
      return out;
    }
    if (def.type === "array" && def.element && Array.isArray(item)) {
      return item.map((child, index) => walk(def.element!, child, [...path, index]));
    }
    return item;
  };
  return { value: walk(schema, value, []), unknownKeys };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The most unknown arguments an error names: the rest are counted. */
const MAX_KEYS_NAMED = 10;
/** The most bad fields an error describes. */
const MAX_ISSUES = 20;

/** Renders zod issues as one sentence per bad field, in words a model can act on. */
export function describeIssues(issues: readonly z.$ZodIssue[]): string {
  const shown = issues.slice(0, MAX_ISSUES).map((issue) => describeIssue(issue)).join("; ");
  const more = issues.length - MAX_ISSUES;
  return more > 0 ? `${shown}; and ${more} more problems.` : `${shown}.`;
}

/** One issue in the words of {@linkcode describeIssues}; also zod's messages for our tools. */
export function describeIssue(
  issue: z.$ZodIssue,
  where = issue.path.length === 0 ? "the input" : `\`${formatPath(issue.path)}\``,
): string {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return `${where} is required`;
      if (where === "the input" && issue.expected === "object") {
        return "the input must be a JSON object";
      }
      return `${where} must be ${article(issue.expected)}, not ${describeValue(issue.input)}`;
    case "unrecognized_keys":
      return issue.keys.length === 1
        ? `unknown argument \`${formatPath([...issue.path, issue.keys[0]])}\``
        : `unknown arguments ${
          issue.keys.slice(0, MAX_KEYS_NAMED).map((key) =>
            `\`${formatPath([...issue.path, key])}\``
          )
            .join(", ")
        }${
          issue.keys.length > MAX_KEYS_NAMED
            ? ` and ${issue.keys.length - MAX_KEYS_NAMED} more`
            : ""
        }`;
    case "invalid_value":
      return `${where} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "too_small":
      return `${where} ${boundText(issue.origin, "least", issue.minimum, issue.inclusive)}`;
    case "too_big":
      return `${where} ${boundText(issue.origin, "most", issue.maximum, issue.inclusive)}`;
    case "invalid_format":
      return `${where} must be a valid ${issue.format}`;
    case "not_multiple_of":
      return `${where} must be a multiple of ${issue.divisor}`;
    default:
      return `${where}: ${issue.message ?? "not valid"}`;
  }
}

function boundText(
  origin: string,
  side: "least" | "most",
  bound: number | bigint,
  inclusive = true,
): string {
  const value = inclusive ? bound : side === "least" ? Number(bound) + 1 : Number(bound) - 1;
  switch (origin) {
    case "string":
      return `must have at ${side} ${value} character${value === 1 ? "" : "s"}`;
    case "array":
    case "set":
      return `must have at ${side} ${value} item${value === 1 ? "" : "s"}`;
    default:
      if (inclusive) return `must be at ${side} ${bound}`;
      return `must be ${side === "least" ? "greater" : "less"} than ${bound}`;
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) {
    // A key is the caller's text: shown disarmed and short.
    const key = typeof part === "number" ? "" : quoteText(String(part), 64);
    out += typeof part === "number" ? `[${part}]` : out === "" ? key : `.${key}`;
  }
  return out;
}

function article(type: string): string {
  if (type === "int") return "an integer";
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** Names a value's kind for an error message (`a string`, `null`, `an array`). */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number" && !Number.isInteger(value)) return `the number ${value}`;
  return typeof value === "string" ? "a string" : article(typeof value);
}
