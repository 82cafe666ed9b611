/** `work`, or a rejection with `late()` once `ms` have passed without its answer (it goes on). */
export function withDeadline<T>(
  work: Promise<T>,
  ms: number,
  late: () => Error = () => new Error(`no answer within ${ms} ms`),
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}
