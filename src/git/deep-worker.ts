// The deep-walk worker (see deep-thread.ts): answers deep questions over its own ObjectStore,
// each with the same code the main thread would run (isomorphic.ts deepAnswer).
import { parentPort, workerData } from 'node:worker_threads';
import { ObjectStore } from './object-store.js';
import { deepAnswer, deepReaders, type DeepQuestion } from './isomorphic.js';
import type { DeepReply, DeepWorkerData } from './deep-thread.js';

const { objects, shallow } = workerData as DeepWorkerData;
// An object behind an index only isomorphic-git reads: no answer here, the main thread asks.
const store = new ObjectStore(objects, () => Promise.reject(new Error('needs the fallback reader')));
const readers = deepReaders(store, new Set(shallow));
const port = parentPort!;

port.on('message', ({ id, question }: { id: number; question: DeepQuestion }) => {
  const reply = (value: DeepReply['value']) => port.postMessage({ id, value } satisfies DeepReply);
  deepAnswer(readers, question).then(reply, () => reply(null));
});
