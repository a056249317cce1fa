/**
 * `fn` remembering its last argument and answer: for a value made from something that almost never changes (a
 * channel's prompt section from its bot's name), asked for on every turn.
 */
export function memoLast<A, R>(fn: (argument: A) => R): (argument: A) => R {
  let last: { argument: A; result: R } | undefined;
  return (argument) => {
    if (last === undefined || last.argument !== argument) last = { argument, result: fn(argument) };
    return last.result;
  };
}
