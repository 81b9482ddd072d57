import 'bootstrap/dist/css/bootstrap.min.css';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { setUnauthorizedHandler } from '../lib/api-client.ts';
import { createAppRouter } from './router.tsx';

// The query library, dialogs, toasts and the console's frame live in the signed-in shell (signed-in-shell.tsx), a
// chunk of its own: the sign-in page loads none of them (decision 048).
const router = createAppRouter();

// The api client already dropped the token; leave the screen that can no longer load.
setUnauthorizedHandler(() => {
  if (router.state.location.pathname !== '/login') void router.navigate('/login', { replace: true });
});

const root = document.getElementById('root');
if (!root) throw new Error('#root is missing from index.html');

createRoot(root).render(
  <StrictMode>
    <RouterProvider router={router} />
  </StrictMode>,
);
