// The JSON Schemas of the bundled families' inputs, as `tool()` converts their zod schemas:
// given to `presetTool`, they keep zod's JSON Schema conversion out of a bundle of the families
// (the Worker). Written by `deno run -A tests/support/family_schemas.ts`;
// tests/family_schemas_test.ts keeps it equal to the conversion.
import type { ToolInputSchema } from "./json_schema.ts";

/**
 * Each family's portable input schema (`strictOf` gives the strict one); `web_fetch_render`
 * is web_fetch's with a reader that renders.
 */
export const FAMILY_SCHEMAS: Record<
  "web_fetch" | "web_fetch_render" | "web_search" | "now" | "ask_human",
  ToolInputSchema
> = {
  "web_fetch": {
    "type": "object",
    "properties": {
      "url": { "type": "string", "description": "Absolute http:// or https:// URL to read." },
      "images": {
        "description":
          "List the page's images (URL and alt text) after the first part. Default false.",
        "type": "boolean",
      },
      "links": {
        "description":
          "Keep the address of links within the site too (else shown as text), to follow its cross-references, as in documentation. Default false.",
        "type": "boolean",
      },
      "offset": {
        "description": "Where to continue reading, from a truncation notice. Default 0.",
        "type": "integer",
        "minimum": 0,
      },
      "max_age": {
        "description":
          "Accept a cached copy only if it is younger than this many seconds; 0 reads the page afresh. Default: a copy of up to a few minutes. Leave it out when continuing at an offset, so the parts come from one version.",
        "type": "integer",
        "minimum": 0,
      },
    },
    "required": ["url"],
    "additionalProperties": false,
  },
  "web_fetch_render": {
    "type": "object",
    "properties": {
      "url": { "type": "string", "description": "Absolute http:// or https:// URL to read." },
      "images": {
        "description":
          "List the page's images (URL and alt text) after the first part. Default false.",
        "type": "boolean",
      },
      "links": {
        "description":
          "Keep the address of links within the site too (else shown as text), to follow its cross-references, as in documentation. Default false.",
        "type": "boolean",
      },
      "offset": {
        "description": "Where to continue reading, from a truncation notice. Default 0.",
        "type": "integer",
        "minimum": 0,
      },
      "max_age": {
        "description":
          "Accept a cached copy only if it is younger than this many seconds; 0 reads the page afresh. Default: a copy of up to a few minutes. Leave it out when continuing at an offset, so the parts come from one version.",
        "type": "integer",
        "minimum": 0,
      },
      "render": {
        "description":
          'Run the page\'s JavaScript in a browser: "auto" (default) when the page shows little text without it, "always", or "never".',
        "type": "string",
        "enum": ["auto", "always", "never"],
      },
    },
    "required": ["url"],
    "additionalProperties": false,
  },
  "web_search": {
    "type": "object",
    "properties": {
      "query": {
        "type": "string",
        "minLength": 1,
        "description": "What to search for, as you would type it.",
      },
      "max_results": {
        "default": 5,
        "description": "How many results to return, 1 to 20.",
        "type": "integer",
      },
      "time_range": {
        "description":
          "Only results from the past day (d), week (w), month (m) or year (y). Omit for any time.",
        "type": "string",
        "enum": ["d", "w", "m", "y"],
      },
    },
    "required": ["query"],
    "additionalProperties": false,
  },
  "now": {
    "type": "object",
    "properties": {
      "tz": {
        "description": "IANA time zone name, e.g. `America/New_York`. Omit for the server's zone.",
        "type": "string",
        "minLength": 1,
      },
    },
    "additionalProperties": false,
    "required": [],
  },
  "ask_human": {
    "type": "object",
    "properties": {
      "question": {
        "type": "string",
        "minLength": 1,
        "maxLength": 4000,
        "description": "The question, complete enough to answer without seeing your conversation.",
      },
      "options": {
        "description":
          '2 to 4 choices, the one you recommend first. Never add an "Other" option: the operator can always answer in free text. Omit for an open question.',
        "minItems": 2,
        "maxItems": 4,
        "type": "array",
        "items": {
          "type": "object",
          "properties": {
            "label": {
              "type": "string",
              "minLength": 1,
              "maxLength": 100,
              "description": "A short choice, one line, unique within the question.",
            },
            "description": {
              "default": "",
              "description": "One line on what choosing it means; may be empty.",
              "type": "string",
              "maxLength": 300,
            },
          },
          "required": ["label"],
          "additionalProperties": false,
        },
      },
      "multi_select": {
        "default": false,
        "description": "Whether the operator may choose several options. Ignored without options.",
        "type": "boolean",
      },
    },
    "required": ["question"],
    "additionalProperties": false,
  },
};
