// The part of madge's API test/unit/importCycles.test.ts uses (madge ships no types).
declare module 'madge' {
  interface MadgeResult {
    /** Each file (relative to the base directory) → the files it imports. */
    obj(): Record<string, string[]>;
  }
  export default function madge(path: string, config?: { fileExtensions?: string[]; tsConfig?: string; excludeRegExp?: RegExp[] }): Promise<MadgeResult>;
}
