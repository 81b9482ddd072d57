import { z } from 'zod';

/** Longest client path the content-file calls accept (the API refuses longer ones with 400 as well). */
export const CONTENT_PATH_MAX = 4096;

export const ContentFileItemSchema = z.object({
  name: z.string(),
  type: z.enum(['file', 'directory']),
  displayName: z.string(),
});
export type ContentFileItem = z.infer<typeof ContentFileItemSchema>;

export const ContentFilesDirSchema = z.object({
  domainDirExists: z.boolean(),
  domainDirName: z.string(),
  /** The upload limits, so the web can refuse a too-large drop before sending it. */
  uploadLimits: z.object({ maxFileBytes: z.number(), maxFiles: z.number(), maxEditBytes: z.number() }),
});
export type ContentFilesDir = z.infer<typeof ContentFilesDirSchema>;

const pathField = z
  .string({ message: 'path is required' })
  .max(CONTENT_PATH_MAX, `A path can be at most ${CONTENT_PATH_MAX} characters`);

export const ContentFilesPathQuerySchema = z.object({ path: pathField.optional().default('') });
export const ContentFilesRequiredPathQuerySchema = z.object({
  path: pathField.min(1, 'path is required'),
});

export const ContentFileRenameInputSchema = z.object({
  name: z
    .string({ message: 'Enter a name' })
    .trim()
    .min(1, 'Enter a name')
    .max(255, 'A name can be at most 255 characters'),
});
export const ContentFileRemoveInputSchema = z.object({ path: pathField.min(1, 'path is required') });
export const ContentFileCreateDirInputSchema = z.object({
  path: pathField.optional().default(''),
  name: z
    .string({ message: 'Enter a name' })
    .trim()
    .min(1, 'Enter a name')
    .max(255, 'A name can be at most 255 characters'),
});

export const ContentFileItemsSchema = z.object({ items: z.array(ContentFileItemSchema) });
export const ContentFileContentSchema = z.object({ fileContent: z.string() });
/** The client path a write touched (rename: the new path). */
export const ContentFilePathResultSchema = z.object({ path: z.string() });
export const ContentFilesUploadResultSchema = z.object({
  items: z.array(z.object({ path: z.string(), size: z.number() })),
});
export type ContentFilesUploadResult = z.infer<typeof ContentFilesUploadResultSchema>;
