import '@mantine/core/styles.css';
import './console.css';
import { Center, createTheme, MantineProvider } from '@mantine/core';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Loading } from './components/bits';
import { Layout } from './layout';
import { pageFor } from './pages';
import { LinkPage } from './pages/link';
import { SignIn } from './pages/sign-in';
import { useRoute } from './router';
import { SessionProvider, useSession } from './session';

// Mantine's blue at a shade with AA contrast for white text on buttons.
const theme = createTheme({ primaryColor: 'blue', primaryShade: 8, defaultRadius: 'sm' });

function App() {
  const route = useRoute();
  const { session, loading } = useSession();
  if (route[0] === 'link' && route[1]) return <LinkPage token={route[1]} />;
  if (loading)
    return (
      <Center h="100vh">
        <Loading />
      </Center>
    );
  if (!session) return <SignIn />;
  const section = route[0] ?? 'overview';
  return <Layout section={section}>{pageFor(section, route.slice(1))}</Layout>;
}

createRoot(document.getElementById('root') as HTMLElement).render(
  <StrictMode>
    <MantineProvider theme={theme}>
      <SessionProvider>
        <App />
      </SessionProvider>
    </MantineProvider>
  </StrictMode>,
);
