/**
 * The public suffixes a domain rule is most often mistaken for (`co.uk`, `com.au`), by country
 * code: what a runtime without the public suffix list (the Worker's size budget leaves it out)
 * still refuses. Each is an ICANN suffix (a test checks them against the list), so a rule this
 * refuses is refused everywhere; suffixes not listed are refused only where the list is.
 */
const COMMON =
  "uk:co,org,ac,gov,me,ltd,plc,net,sch,nhs,police au:com,net,org,edu,gov,asn,id jp:co,ne,or,ac,go,gr nz:co,org,net,govt,ac za:co,org,gov,ac br:com,net,org,gov cn:com,net,org,gov,edu mx:com,org,gob tr:com,org,gov tw:com,org hk:com,org sg:com,edu in:co,net,org,gov,ac kr:co,or,go,ac il:co,org,ac,gov ar:com,gob co:com,gov pe:com ve:com ua:com,gov pl:com id:co,ac,go,or my:com,gov th:co,ac,go vn:com ph:com pk:com eg:com sa:com ng:com ke:co es:com,org,gob at:co,or,gv,ac gr:com hu:co it:co,gov";

const SUFFIXES = new Set(
  COMMON.split(" ").flatMap((entry) => {
    const [tld, labels] = entry.split(":");
    return labels.split(",").map((label) => `${label}.${tld}`);
  }),
);

/** Whether a lower-case host is one of the common public suffixes above. */
export function isCommonSuffix(host: string): boolean {
  return SUFFIXES.has(host);
}

/** Every suffix listed, for the test that checks them against the public suffix list. */
export const COMMON_SUFFIXES: readonly string[] = [...SUFFIXES];
