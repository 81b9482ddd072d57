#!/usr/bin/env node
// The command-line client runs its TypeScript sources through tsx (a dependency), so a checkout needs no build.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/main.ts');
process.exitCode = await main(process.argv.slice(2));
