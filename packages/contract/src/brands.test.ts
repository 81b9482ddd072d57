import { describe, expect, it } from 'vitest';
import { BrandInputSchema, TRAFFIC_FALL_MESSAGE } from './brands.ts';

describe("a brand's traffic fall limit", () => {
  it('is off (null) when null or left out, and a whole percent from 1 to 100 otherwise', () => {
    expect(BrandInputSchema.parse({ name: 'B' }).trafficFallPercent).toBeUndefined();
    expect(BrandInputSchema.parse({ name: 'B', trafficFallPercent: null }).trafficFallPercent).toBeNull();
    expect(BrandInputSchema.parse({ name: 'B', trafficFallPercent: 1 }).trafficFallPercent).toBe(1);
    expect(BrandInputSchema.parse({ name: 'B', trafficFallPercent: 100 }).trafficFallPercent).toBe(100);
  });

  it.each([0, 101, 30.5, -5, '30', '', Number.NaN])("refuses %s with the field's message", (v) => {
    const r = BrandInputSchema.safeParse({ name: 'B', trafficFallPercent: v });
    expect(r.success).toBe(false);
    expect(r.error!.issues).toEqual([
      expect.objectContaining({ path: ['trafficFallPercent'], message: TRAFFIC_FALL_MESSAGE }),
    ]);
    expect(TRAFFIC_FALL_MESSAGE).toBe('Traffic fall must be a whole percent from 1 to 100');
  });
});
