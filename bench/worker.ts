/**
 * The measuring child: `node <compiled>/bench/worker.js '<task JSON>'`. Loads one scenario family
 * and either serves an IPC measuring session (`open(task)`: throughput families) or runs a one-shot
 * `work(task)` (memory, state, transport) — one side, one variant per process, so the two SDKs
 * never share a heap, a JIT profile or a GC.
 */
import { replyFromChild, taskArgument } from "./lib/child.js";
import { type MeasureOptions, type RunSample, timedRun, warmUp } from "./lib/measure.js";
import { type OpenTarget, serveSession } from "./lib/session.js";

interface FamilyModule {
  work?(task: unknown): Promise<unknown>;
  open?(task: unknown): Promise<OpenTarget | { unavailable: string }>;
}

const task = taskArgument<{ family: string; measure?: MeasureOptions }>();
if (!/^[a-z-]+$/.test(task.family)) throw new Error(`bad family ${task.family}`);
const family = (await import(`./scenarios/${task.family}.js`)) as FamilyModule;
if (process.send && family.open && task.measure) {
  const open = family.open;
  await serveSession(() => open(task), task.measure);
} else {
  await replyFromChild(async () => {
    if (family.work) return family.work(task);
    // A session family without a parent on IPC (bench/profile.ts): warm up, run, report.
    const { open } = family;
    const measure = task.measure;
    if (!open || !measure) throw new Error(`family ${task.family} cannot run one-shot`);
    const target = await open(task);
    if (!("flow" in target)) return { unavailable: target.unavailable };
    await warmUp(target, measure);
    const samples: RunSample[] = [];
    for (let i = 0; i < measure.runs; i++) samples.push(await timedRun(target, measure));
    await target.close();
    return { samples };
  });
  // Servers, sockets and timers of the measured SDK must not keep the child alive.
  process.exit();
}
