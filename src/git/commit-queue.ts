// A binary max-heap on committer time: the walk order git itself uses, so a walk can
// stop as soon as the newest queued commit is older than the question's cut-off.

export interface Timed {
  time: number;
}

export class CommitQueue<T extends Timed> {
  private readonly heap: T[] = [];

  push(item: T): void {
    const heap = this.heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((heap[parent] as T).time >= item.time) break;
      heap[i] = heap[parent] as T;
      i = parent;
    }
    heap[i] = item;
  }

  /** The newest queued item, or undefined when empty. */
  pop(): T | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && (heap[right] as T).time > (heap[left] as T).time ? right : left;
      if ((heap[child] as T).time <= last.time) break;
      heap[i] = heap[child] as T;
      i = child;
    }
    heap[i] = last;
    return top;
  }
}
