import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const brands = pgTable(
  'brands',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    brandNo: integer('brand_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
    /** The "Traffic fell" check's limit in percent (1–100); null is off (issue 47). */
    trafficFallPercent: integer('traffic_fall_percent'),
    /** Submit changed URLs of the brand's domains to IndexNow (issue 46, decision 075); off by default. */
    indexNow: boolean('index_now').notNull().default(false),
  },
  (t) => [
    uniqueIndex('brands_name_lower_uq').on(sql`lower(${t.name})`),
    index('brands_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
    check('brands_traffic_fall_percent_ck', sql`${t.trafficFallPercent} BETWEEN 1 AND 100`),
  ],
);

export const regions = pgTable(
  'regions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    regionNo: integer('region_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
  },
  (t) => [
    uniqueIndex('regions_name_lower_uq').on(sql`lower(${t.name})`),
    index('regions_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
  ],
);
