// The deep-walk worker (see deep-thread.ts): answers deep questions over its own ObjectStore,
// with the same code the main thread would run (isomorphic.ts deepAnswers).
import { parentPort, workerData } from 'node:worker_threads';
import { ObjectStore } from './object-store.js';
import { deepAnswers, deepReaders, type DeepQuestion } from './isomorphic.js';
import type { DeepReply, DeepWorkerData } from './deep-thread.js';

const { objects, shallow } = workerData as DeepWorkerData;
// An object behind an index only isomorphic-git reads: no answer here, the main thread asks.
const store = new ObjectStore(objects, () => Promise.reject(new Error('needs the fallback reader')));
const readers = deepReaders(store, new Set(shallow));
const port = parentPort!;

// Questions that arrive together (doctor asks its two at once, before this thread is up) are
// answered together: one walk for those from the same tip back to the same time.
let batch: { id: number; question: DeepQuestion }[] = [];
port.on('message', (message: { id: number; question: DeepQuestion }) => {
  if (batch.push(message) === 1) setImmediate(answerBatch);
});

function answerBatch(): void {
  const asked = batch;
  batch = [];
  const reply = (id: number, value: DeepReply['value']) => port.postMessage({ id, value } satisfies DeepReply);
  deepAnswers(
    readers,
    asked.map((m) => m.question),
  ).then(
    (values) => asked.forEach((m, i) => reply(m.id, values[i]!)),
    () => asked.forEach((m) => reply(m.id, null)),
  );
}
