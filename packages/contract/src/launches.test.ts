import { describe, expect, it } from 'vitest';
import { confirmQuestion } from './launches.ts';

describe('confirmQuestion', () => {
  it('asks once: a text that already asks for a confirmation is not asked again (issue 47)', () => {
    expect(confirmQuestion('Registering a.com for 1 year costs money: confirm to go on')).toBe(
      'Registering a.com for 1 year costs money: confirm to go on.',
    );
    expect(
      confirmQuestion('a.com is already a console domain: the launch will set x. Confirm to change these settings'),
    ).toBe('a.com is already a console domain: the launch will set x. Confirm to change these settings.');
    expect(confirmQuestion('3 registrations cost 30.00 USD.')).toBe('3 registrations cost 30.00 USD. Go on?');
    expect(confirmQuestion('Register the names')).toBe('Register the names. Go on?');
  });
});
