import { bundle, gzipSize, wranglerBuild } from "../tests/support/bundle.ts";
const temp = await Deno.makeTempDir();
const module = await wranglerBuild(`${temp}/out`);
const bytes = await Deno.readFile(module);
console.log(
  "worker gzip",
  await gzipSize(bytes),
  "budget",
  100 * 1024,
  "spare",
  100 * 1024 - await gzipSize(bytes),
);
if (Deno.args[0] === "modules") {
  const b = await bundle("edge/cloudflare/app/worker.ts", { format: "esm", minify: true });
  console.log([...b.modules].sort((a, b) => b[1] - a[1]).slice(0, 40));
}
await Deno.remove(temp, { recursive: true });
