import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';

export const brands = pgTable(
  'brands',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    brandNo: integer('brand_no').generatedAlwaysAsIdentity().notNull(),
    name: text('name').notNull(),
  },
  (t) => [
    uniqueIndex('brands_name_lower_uq').on(sql`lower(${t.name})`),
    index('brands_name_trgm_idx').using('gin', sql`${t.name} gin_trgm_ops`),
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
