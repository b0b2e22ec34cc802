/** Wraps `kv` so that every `atomic().set` records its `expireIn` into `expiries`. */
export function recordExpiries(kv: Deno.Kv, expiries: (number | undefined)[]): Deno.Kv {
  return new Proxy(kv, {
    get(target, property) {
      if (property !== "atomic") {
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return () => {
        const op = target.atomic();
        const wrapped: Deno.AtomicOperation = new Proxy(op, {
          get(opTarget, name) {
            const value = Reflect.get(opTarget, name, opTarget);
            if (typeof value !== "function") return value;
            return (...args: unknown[]) => {
              if (name === "set") {
                expiries.push((args[2] as { expireIn?: number } | undefined)?.expireIn);
              }
              const result = value.apply(opTarget, args);
              return result === opTarget ? wrapped : result;
            };
          },
        });
        return wrapped;
      };
    },
  });
}
