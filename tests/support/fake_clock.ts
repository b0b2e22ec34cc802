// The tests' fake clock is the one the contract suites publish.
export { FakeClock } from "../../src/testing/fake_clock.ts";
