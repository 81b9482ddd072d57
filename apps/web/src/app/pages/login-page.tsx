import { Navigate, useNavigate } from 'react-router';
import Card from 'react-bootstrap/Card';
import Form from 'react-bootstrap/Form';
import { zodResolver } from '@hookform/resolvers/zod';
import { useForm } from 'react-hook-form';
import { LoginInputSchema, type LoginInput } from '@fleetdesk/contract';
import { useDialogs } from '../../components/dialog-host.tsx';
import { SubmitButton } from '../../components/submit-button.tsx';
import { errorMessage } from '../../lib/api-error.ts';
import { login } from '../../lib/auth.ts';
import { useToken } from '../../lib/token.ts';

export function LoginPage() {
  const token = useToken();
  const navigate = useNavigate();
  const dialogs = useDialogs();
  const form = useForm<LoginInput>({
    resolver: zodResolver(LoginInputSchema),
    defaultValues: { username: '', password: '' },
  });
  const { errors, isSubmitting } = form.formState;

  const handleValid = async (input: LoginInput) => {
    try {
      await login(input);
    } catch (error) {
      // Bad credentials answer 401 here: the server's message, not a redirect.
      void dialogs.error(errorMessage(error));
      return;
    }
    await navigate('/', { replace: true });
  };

  if (token && !isSubmitting) return <Navigate to="/" replace />;

  return (
    <Card className="mx-auto mt-4 shadow-sm" style={{ maxWidth: 400 }}>
      <Card.Body className="p-4">
        <Card.Title as="h1" className="h4 mb-3">
          Login
        </Card.Title>
        {/* No noValidate: the browser's own required check comes first. */}
        <Form onSubmit={(event) => void form.handleSubmit(handleValid)(event)}>
          <Form.Group className="mb-3" controlId="login-username">
            <Form.Label>Username</Form.Label>
            <Form.Control
              autoComplete="username"
              required
              autoFocus
              isInvalid={Boolean(errors.username)}
              {...form.register('username')}
            />
            <Form.Control.Feedback type="invalid">{errors.username?.message}</Form.Control.Feedback>
          </Form.Group>
          <Form.Group className="mb-4" controlId="login-password">
            <Form.Label>Password</Form.Label>
            <Form.Control
              type="password"
              autoComplete="current-password"
              required
              isInvalid={Boolean(errors.password)}
              {...form.register('password')}
            />
            <Form.Control.Feedback type="invalid">{errors.password?.message}</Form.Control.Feedback>
          </Form.Group>
          <SubmitButton pending={isSubmitting} className="w-100">
            Login
          </SubmitButton>
        </Form>
      </Card.Body>
    </Card>
  );
}
