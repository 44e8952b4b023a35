// Types of startLimits.mjs (plain JavaScript, read by start.mjs before anything is compiled).
export declare const LIMITS_APPLIED: string;
export declare function startLimits(env?: Record<string, string | undefined>): { nodeFlags: string[]; env: Record<string, string> };
