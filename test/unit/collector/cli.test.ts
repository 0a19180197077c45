import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { registerCollectorCommand } from '../../../cli/commands/collector/command.ts';
import { COLLECTOR_NODE_FLAGS, hasCollectorNodeFlags } from '../../../collector/node-flags.ts';
import { ConfigError } from '../../../platform/connections.ts';

function program(): Command {
  const p = new Command('tooltrail').exitOverride();
  registerCollectorCommand(p);
  return p;
}

describe('tooltrail collector command', () => {
  it('refuses --no-auth on a non-loopback address with a one-line configuration error naming the key', async () => {
    await assert.rejects(
      program().parseAsync(['collector', '--no-auth', '--host', '0.0.0.0'], { from: 'user' }),
      (e: Error) => e instanceof ConfigError && /collector\.http\.host: .*loopback/.test(e.message),
    );
  });

  it('refuses to start without tokens in bearer mode, saying which variable to set', async () => {
    const saved = process.env.TOOLTRAIL_COLLECTOR_TOKENS;
    delete process.env.TOOLTRAIL_COLLECTOR_TOKENS;
    try {
      await assert.rejects(
        program().parseAsync(['collector', '--port', '0'], { from: 'user' }),
        (e: Error) => e instanceof ConfigError && e.message.includes('TOOLTRAIL_COLLECTOR_TOKENS'),
      );
    } finally {
      if (saved !== undefined) process.env.TOOLTRAIL_COLLECTOR_TOKENS = saved;
    }
  });
});

describe('collector node flags', () => {
  it('are found in execArgv or NODE_OPTIONS, whatever their value', () => {
    assert.equal(hasCollectorNodeFlags([], ''), false);
    assert.equal(hasCollectorNodeFlags(['--max-semi-space-size=64'], ''), true);
    assert.equal(hasCollectorNodeFlags([], '--inspect --max-semi-space-size=16'), true);
    assert.deepEqual([...COLLECTOR_NODE_FLAGS], ['--max-semi-space-size=32']);
  });
});
