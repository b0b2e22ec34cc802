// The JSON Schemas of the bundled families' inputs, as `tool()` converts their zod schemas:
// given to `presetTool`, they keep zod's JSON Schema conversion out of a bundle of the families
// (the Worker). Written by `deno run -A tests/support/family_schemas.ts`;
// tests/family_schemas_test.ts keeps it equal to the conversion.
import type { InputJsonSchemas } from "./json_schema.ts";

/** Each family's input schemas; `web_fetch_render` is web_fetch's with a reader that renders. */
export const FAMILY_SCHEMAS: Record<
  "web_fetch" | "web_fetch_render" | "web_search" | "now" | "ask_human",
  InputJsonSchemas
> = {
  "web_fetch": {
    "strict": {
      "type": "object",
      "properties": {
        "url": { "type": "string", "description": "Absolute http:// or https:// URL to read." },
        "images": {
          "description":
            "List the page's images (URL and alt text) after the first part. Default false.",
          "type": ["boolean", "null"],
        },
        "links": {
          "description":
            "Keep the address of links within the site too (else shown as text), to follow its cross-references, as in documentation. Default false.",
          "type": ["boolean", "null"],
        },
        "offset": {
          "description": "Where to continue reading, from a truncation notice. Default 0.",
          "type": ["integer", "null"],
          "minimum": 0,
        },
        "max_age": {
          "description":
            "Accept a cached copy only if it is younger than this many seconds; 0 reads the page afresh. Default: a copy of up to a few minutes. Leave it out when continuing at an offset, so the parts come from one version.",
          "type": ["integer", "null"],
          "minimum": 0,
        },
      },
      "required": ["url", "images", "links", "offset", "max_age"],
      "additionalProperties": false,
    },
    "portable": {
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
  },
  "web_fetch_render": {
    "strict": {
      "type": "object",
      "properties": {
        "url": { "type": "string", "description": "Absolute http:// or https:// URL to read." },
        "images": {
          "description":
            "List the page's images (URL and alt text) after the first part. Default false.",
          "type": ["boolean", "null"],
        },
        "links": {
          "description":
            "Keep the address of links within the site too (else shown as text), to follow its cross-references, as in documentation. Default false.",
          "type": ["boolean", "null"],
        },
        "offset": {
          "description": "Where to continue reading, from a truncation notice. Default 0.",
          "type": ["integer", "null"],
          "minimum": 0,
        },
        "max_age": {
          "description":
            "Accept a cached copy only if it is younger than this many seconds; 0 reads the page afresh. Default: a copy of up to a few minutes. Leave it out when continuing at an offset, so the parts come from one version.",
          "type": ["integer", "null"],
          "minimum": 0,
        },
        "render": {
          "anyOf": [{ "type": "string", "enum": ["auto", "always", "never"] }, { "type": "null" }],
          "description":
            'Run the page\'s JavaScript in a browser: "auto" (default) when the page shows little text without it, "always", or "never".',
        },
      },
      "required": ["url", "images", "links", "offset", "max_age", "render"],
      "additionalProperties": false,
    },
    "portable": {
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
  },
  "web_search": {
    "strict": {
      "type": "object",
      "properties": {
        "query": {
          "type": "string",
          "minLength": 1,
          "description": "What to search for, as you would type it.",
        },
        "max_results": {
          "description": "How many results to return, 1 to 20. Default: 5.",
          "type": ["integer", "null"],
        },
        "time_range": {
          "anyOf": [{ "type": "string", "enum": ["d", "w", "m", "y"] }, { "type": "null" }],
          "description":
            "Only results from the past day (d), week (w), month (m) or year (y). Omit for any time.",
        },
      },
      "required": ["query", "max_results", "time_range"],
      "additionalProperties": false,
    },
    "portable": {
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
  },
  "now": {
    "strict": {
      "type": "object",
      "properties": {
        "tz": {
          "description":
            "IANA time zone name, e.g. `America/New_York`. Omit for the server's zone.",
          "type": ["string", "null"],
          "minLength": 1,
        },
      },
      "additionalProperties": false,
      "required": ["tz"],
    },
    "portable": {
      "type": "object",
      "properties": {
        "tz": {
          "description":
            "IANA time zone name, e.g. `America/New_York`. Omit for the server's zone.",
          "type": "string",
          "minLength": 1,
        },
      },
      "additionalProperties": false,
      "required": [],
    },
  },
  "ask_human": {
    "strict": {
      "type": "object",
      "properties": {
        "question": {
          "type": "string",
          "minLength": 1,
          "maxLength": 4000,
          "description":
            "The question, complete enough to answer without seeing your conversation.",
        },
        "options": {
          "description":
            '2 to 4 choices, the one you recommend first. Never add an "Other" option: the operator can always answer in free text. Omit for an open question.',
          "minItems": 2,
          "maxItems": 4,
          "type": ["array", "null"],
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
                "description": 'One line on what choosing it means; may be empty. Default: "".',
                "type": ["string", "null"],
                "maxLength": 300,
              },
            },
            "required": ["label", "description"],
            "additionalProperties": false,
          },
        },
        "multi_select": {
          "description":
            "Whether the operator may choose several options. Ignored without options. Default: false.",
          "type": ["boolean", "null"],
        },
      },
      "required": ["question", "options", "multi_select"],
      "additionalProperties": false,
    },
    "portable": {
      "type": "object",
      "properties": {
        "question": {
          "type": "string",
          "minLength": 1,
          "maxLength": 4000,
          "description":
            "The question, complete enough to answer without seeing your conversation.",
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
          "description":
            "Whether the operator may choose several options. Ignored without options.",
          "type": "boolean",
        },
      },
      "required": ["question"],
      "additionalProperties": false,
    },
  },
};
