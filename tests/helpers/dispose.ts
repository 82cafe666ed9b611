/**
 * `await using x = closing(await open…())` for a resource the code under test hands out without
 * `Symbol.asyncDispose` (a store, a gateway, a server): its `close()` runs when the scope ends,
 * also when an assertion fails.
 */
export function closing<T extends { close(): unknown }>(resource: T): T & AsyncDisposable {
  return Object.assign(resource, {
    [Symbol.asyncDispose]: async () => void await resource.close(),
  });
}
