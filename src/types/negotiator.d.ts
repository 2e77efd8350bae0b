// negotiator 1.x, the part used here: @types/negotiator (0.6) lacks the server's `preferred` order among equals.
declare module 'negotiator' {
  export default class Negotiator {
    constructor(request: { headers: Record<string, string | undefined> });
    encoding(available: readonly string[], options?: { preferred?: readonly string[] }): string | undefined;
  }
}
