import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ApiError } from './api.ts';
import { Layout } from './Layout.tsx';
import { pages } from './routes.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { useSession } from './session.tsx';
import { ErrorNote, Loading } from './ui.tsx';
import './styles.css';

const queryClient: QueryClient = new QueryClient({
  // A 401 anywhere (session ended, expired, signed out elsewhere) sends the page back to sign-in.
  queryCache: new QueryCache({
    onError: (err) => {
      if (err instanceof ApiError && err.status === 401)
        void queryClient.invalidateQueries({ queryKey: ['session'] });
    },
  }),
  defaultOptions: {
    queries: {
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
      refetchOnWindowFocus: true,
    },
  },
});

function Root() {
  const session = useSession();
  if (session.isLoading) return <Loading what="the appliance" />;
  if (session.error)
    return (
      <main id="main" className="signin">
        <h1>Appliance</h1>
        <ErrorNote error={session.error} />
      </main>
    );
  const data = session.data!;
  if (!data.me) return <SignIn firstRun={data.setupRequired} key={String(data.setupRequired)} />;
  return <Layout me={data.me} />;
}

const router = createBrowserRouter([{ path: '/', element: <Root />, children: pages }]);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>
  </StrictMode>,
);
