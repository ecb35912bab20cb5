// examples/fleet's events bus is the instances' IPC channel to run.ts. A bus that fails must cost
// the instance only the announcement (the SDK logs a failing publish), never the process.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const fixture = fileURLToPath(new URL("../fixtures/fleet/ipc-instance.ts", import.meta.url));

it("an instance whose supervisor closed the IPC channel logs the failed publish and keeps running", async () => {
  const child = fork(fixture, { execArgv: ["--import", "tsx"], stdio: ["ignore", "pipe", "pipe", "ipc"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  // A listener for good, not once: the instance also publishes its own announcements over the
  // channel, and Node queues a message nobody listens for on the channel, which disconnect() nulls
  // (a TypeError in the test process when one is still in flight).
  child.on("message", () => {
    if (child.connected) child.disconnect();
  });
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  expect({ code, stdout }).toEqual({ code: 0, stdout: "alive\n" });
  expect(stderr).toContain("events.publish failed: Error [ERR_IPC_CHANNEL_CLOSED]: Channel closed");
}, 30_000);
