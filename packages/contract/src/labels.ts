/**
 * An enum's values from its table of words, in the table's order: the values are written once, with their
 * words, instead of a list and a table that must agree.
 */
export const valuesOf = <K extends string>(labels: Record<K, string>) => Object.keys(labels) as [K, ...K[]];
