// Bare mentions of a host written to slip past a plain match: every dot look-alike or defanged
// dot, with every invisible character at each place, in sample host names.

/** Ways to write the dot between two labels. */
export const DOTS = [
  ".",
  "\u3002", // ideographic full stop
  "\uFF0E", // fullwidth full stop
  "\uFF61", // halfwidth ideographic full stop
  "\u2024", // one dot leader
  "\uFE52", // small full stop
  "[.]",
  "(.)",
  "{.}",
  "[dot]",
  "(dot)",
  "{dot}",
  "[DOT]",
  "[ . ]",
  " [.] ",
  "\\.",
  "&#46;",
  "&#046;",
  "&#x2E;",
  "&#x2e;",
  "&period;",
  "%2E",
  "%2e",
  " .",
  " . ",
];

/** Characters a reader cannot see. */
export const INVISIBLES = [
  "",
  "\u200B",
  "\u200C",
  "\u200D",
  "\u2060",
  "\uFEFF",
  "\u00AD",
  "\u180E",
  "\u034F",
  "\u061C",
  "\u200E",
  "\u202E",
  "\u2066",
  "\uFE0F",
  "\u{E0020}",
  "\x07",
];

/** The block rules, and host names each covers. */
export const RULES = ["evil.example", "tracker.co.uk", "ads.net"];
export const HOSTS: [host: string, rule: string][] = [
  ["evil.example", "evil.example"],
  ["cdn.evil.example", "evil.example"],
  ["tracker.co.uk", "tracker.co.uk"],
  ["x1.ads.net", "ads.net"],
];

const FULLWIDTH = (text: string) =>
  text.replace(/[a-z0-9]/g, (c) => String.fromCodePoint(c.codePointAt(0)! + 0xfee0));

/** One written mention, the rule it breaks, and the sentence it stands in. */
export interface MentionForm {
  written: string;
  rule: string;
  content: string;
}

/**
 * Every host written with every dot form, with or without fullwidth letters, with every
 * invisible before a dot, after a dot, inside the first label or inside the last.
 */
export function* mentionForms(): Generator<MentionForm> {
  for (const [host, rule] of HOSTS) {
    for (const wide of [false, true]) {
      const labels = host.split(".").map((label) => wide ? FULLWIDTH(label) : label);
      for (const dot of DOTS) {
        for (const invisible of INVISIBLES) {
          const places = invisible === "" ? [labels.join(dot)] : [
            labels.join(invisible + dot),
            labels.join(dot + invisible),
            [labels[0].slice(0, 1) + invisible + labels[0].slice(1), ...labels.slice(1)].join(dot),
            [
              ...labels.slice(0, -1),
              labels.at(-1)!.slice(0, 1) + invisible + labels.at(-1)!.slice(1),
            ]
              .join(dot),
          ];
          for (const written of places) {
            yield { written, rule, content: `Go to ${written} today.` };
          }
        }
      }
    }
  }
}
