import { describe, expect, it } from 'vitest';
import { createAccessControl } from '../../src/access/index.js';

describe('AccessControl.mayDirectMessage (who a channel may greet unprompted)', () => {
  it('follows DM_POLICY: open admits everyone, disabled no one, allowlist only those listed', async () => {
    const options = { allowFrom: ['slack:U0LISTED'], groupAllowlist: [] };
    expect(await createAccessControl({ ...options, dmPolicy: 'open' }).mayDirectMessage('slack', 'U0ANYONE')).toBe(true);
    expect(await createAccessControl({ ...options, dmPolicy: 'disabled' }).mayDirectMessage('slack', 'U0LISTED')).toBe(false);
    const allowlist = createAccessControl({ ...options, dmPolicy: 'allowlist' });
    expect(await allowlist.mayDirectMessage('slack', 'U0LISTED')).toBe(true);
    expect(await allowlist.mayDirectMessage('slack', 'U0ANYONE')).toBe(false);
    expect(await allowlist.mayDirectMessage('telegram', 'U0LISTED')).toBe(false);
  });
});
