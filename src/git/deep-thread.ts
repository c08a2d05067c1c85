// The deep questions (commitsNaming, lastRemovals) walk tens of thousands of old objects,
// synchronously, while doctor's other questions (the bounded walk, file revisions) read
// objects in the same thread. In a worker thread the deep walk runs beside them on another
// core: doctor then waits for the longer of the two, not their sum. Started only when a deep
// question is asked (a run that asks none never pays the thread's start-up). The worker gives
// an answer or nothing: on anything else (no worker file, an object only the fallback reader
// has, any error) the question is asked again in the main thread, so every answer and error
// is the one the main thread gives.
import { existsSync } from 'node:fs';
import type { Worker } from 'node:worker_threads';
import type { DeepQuestion } from './isomorphic.js';
import type { CommitInfo } from './types.js';

/** The worker's bundle; undefined: the one beside this module's in dist/ (running from the sources, there is none). */
let script: string | null | undefined;
let singleCore: boolean | undefined;

/** Tests point this at a built worker (or null: none; undefined: the default). Returns the previous setting. */
export function setDeepWorkerScript(path: string | null | undefined): string | null | undefined {
  const before = script;
  script = path;
  return before;
}

/** What the worker is given at start: where the objects are, and the shallow boundary. */
export interface DeepWorkerData {
  objects: string;
  shallow: string[];
}

/** One answer from the worker: `value` null when it could not answer. */
export interface DeepReply {
  id: number;
  value: CommitInfo[] | null;
}

export class DeepThread {
  private next = 0;
  private readonly waiting = new Map<number, (value: CommitInfo[] | null) => void>();
  private failed = false;

  private constructor(private readonly worker: Worker) {
    // Held open only while a question waits: a finished doctor never waits on an idle thread.
    worker.unref();
    worker.on('message', (reply: DeepReply) => this.settle(reply.id, reply.value));
    worker.on('error', () => this.fail());
    worker.on('exit', () => this.fail());
  }

  /**
   * A worker reading `objects` (null when there is no worker file, or one core). node:worker_threads
   * (and node:url) load here, not with this module: a run that asks no deep question pays nothing.
   */
  static async start(objects: string, shallow: ReadonlySet<string>): Promise<DeepThread | null> {
    const file = script === undefined ? (await import('node:url')).fileURLToPath(new URL('./deep-worker.cjs', import.meta.url)) : script;
    if (file === null || !existsSync(file)) return null;
    // On one core a second thread only adds its start-up and its own compiling.
    if (singleCore ??= (await import('node:os')).availableParallelism() < 2) return null;
    const { Worker } = await import('node:worker_threads');
    const workerData: DeepWorkerData = { objects, shallow: [...shallow] };
    try {
      // The walk's garbage dies young: left to grow, its young generation reaches node's 32 MB
      // and peak memory follows; capped, a stale 20,000-commit walk peaks ~12 MB lower, no slower.
      return new DeepThread(new Worker(file, { workerData, resourceLimits: { maxYoungGenerationSizeMb: 4 } }));
    } catch {
      return null;
    }
  }

  /** The worker's answer, or null when the question must be asked in this thread. */
  ask(question: DeepQuestion): Promise<CommitInfo[] | null> {
    if (this.failed) return Promise.resolve(null);
    const id = this.next++;
    if (this.waiting.size === 0) this.worker.ref();
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage({ id, question });
    });
  }

  private settle(id: number, value: CommitInfo[] | null): void {
    const resolve = this.waiting.get(id);
    if (resolve === undefined) return;
    this.waiting.delete(id);
    if (this.waiting.size === 0) this.worker.unref();
    resolve(value);
  }

  private fail(): void {
    this.failed = true;
    for (const resolve of this.waiting.values()) resolve(null);
    this.waiting.clear();
    this.worker.unref();
  }
}
