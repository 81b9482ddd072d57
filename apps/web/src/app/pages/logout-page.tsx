import { useState } from 'react';
import { useNavigate } from 'react-router';
import Button from 'react-bootstrap/Button';
import Card from 'react-bootstrap/Card';
import Spinner from 'react-bootstrap/Spinner';
import { useQueryClient } from '@tanstack/react-query';
import { logout } from '../../lib/auth.ts';

export function LogoutPage() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [pending, setPending] = useState(false);

  const handleLogout = async () => {
    setPending(true);
    await logout();
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'auth' });
    await navigate('/login', { replace: true });
  };

  return (
    <Card className="mx-auto mt-4 shadow-sm" style={{ maxWidth: 400 }}>
      <Card.Body className="p-4">
        <Card.Title as="h1" className="h4 mb-3">
          Logout
        </Card.Title>
        <p className="text-body-secondary">Sign out of Fleetdesk on this browser.</p>
        <Button variant="primary" className="w-100" onClick={() => void handleLogout()} disabled={pending}>
          {pending && <Spinner as="span" animation="border" size="sm" className="me-2" aria-hidden="true" />}
          Logout
        </Button>
      </Card.Body>
    </Card>
  );
}
