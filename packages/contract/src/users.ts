import { z } from 'zod';
import { IdSchema, ListQuerySchema, requiredText } from './common.ts';
import { STATUSES } from './constants.ts';

export const PASSWORD_MIN = 10;
export const PASSWORD_MIN_MESSAGE = `Password must be at least ${PASSWORD_MIN} characters`;
export const EMAIL_MESSAGE = 'Email must be a valid email address';

/** A trimmed, bounded, valid email address. */
export const emailText = (label = 'Email') =>
  z
    .string({ message: `${label} is required` })
    .trim()
    .min(1, { message: `${label} is required` })
    .max(254, { message: `${label} must be at most 254 characters` })
    .regex(z.regexes.email, { message: EMAIL_MESSAGE });

export const passwordText = () =>
  z
    .string({ message: 'Password is required' })
    .min(PASSWORD_MIN, { message: PASSWORD_MIN_MESSAGE })
    .max(1024, { message: 'Password must be at most 1024 characters' });

export const statusValue = () =>
  z.enum(STATUSES, {
    error: (iss) => (iss.input === undefined ? 'Status is required' : 'Status must be active or inactive'),
  });

const usernameText = () => requiredText(100, 'Username').regex(/^\S+$/, { message: 'Username cannot contain spaces' });

/** Role ids; a repeated id is kept once (a role is added to a user only once). */
const roleIds = () =>
  z
    .array(IdSchema, { message: 'Roles must be a list of role ids' })
    .max(100, { message: 'Too many roles' })
    .transform((ids) => [...new Set(ids)]);

export const UserRoleSchema = z.object({
  roleId: IdSchema,
  role: z.object({ _id: IdSchema, name: z.string() }),
});
export type UserRole = z.infer<typeof UserRoleSchema>;

/** The password is write-only: no response carries it. */
export const UserSchema = z.object({
  _id: IdSchema,
  userNo: z.number().int(),
  username: z.string(),
  name: z.string(),
  email: z.string(),
  status: z.enum(STATUSES),
  dateCreated: z.string(),
  dateLastLogin: z.string().nullable(),
  userRoles: z.array(UserRoleSchema),
});
export type User = z.infer<typeof UserSchema>;

export const UserInputSchema = z.object({
  username: usernameText(),
  name: requiredText(200, 'Name'),
  email: emailText(),
  password: passwordText(),
  status: statusValue(),
  roles: roleIds().default([]),
});
export type UserInput = z.infer<typeof UserInputSchema>;

/** On update every field is optional, and an empty password keeps the current one. */
export const UserUpdateInputSchema = z.object({
  username: usernameText().optional(),
  name: requiredText(200, 'Name').optional(),
  email: emailText().optional(),
  password: z.preprocess((v) => (v === '' || v === null ? undefined : v), passwordText().optional()),
  status: statusValue().optional(),
  roles: roleIds().optional(),
});
export type UserUpdateInput = z.infer<typeof UserUpdateInputSchema>;

export const UserListQuerySchema = ListQuerySchema;
