/** Runs tooltrail commands in-process, so a test reads what they printed and their exit code without a child. */
import { Command } from 'commander';

export interface CliResult {
  out: string;
  err: string;
  code: number;
}

/** Registers `commands` on a fresh program and runs `args` with `env` set; console and env are restored after. */
export async function runCliInProcess(
  commands: ReadonlyArray<(program: Command) => void>,
  args: string[],
  env: Record<string, string>,
): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const saved = { log: console.log, error: console.error, env: { ...process.env } };
  console.log = (...a: unknown[]) => out.push(a.join(' '));
  console.error = (...a: unknown[]) => err.push(a.join(' '));
  Object.assign(process.env, env);
  try {
    const program = new Command('tooltrail').exitOverride();
    for (const register of commands) register(program);
    await program.parseAsync(args, { from: 'user' });
    return { out: out.join('\n'), err: err.join('\n'), code: Number(process.exitCode ?? 0) };
  } finally {
    console.log = saved.log;
    console.error = saved.error;
    for (const k of Object.keys(env)) {
      if (saved.env[k] === undefined) delete process.env[k];
      else process.env[k] = saved.env[k];
    }
    process.exitCode = 0;
  }
}
